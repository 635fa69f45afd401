// Decision makers and their portal end to end: a petition published through the API invites its
// decision makers (the lifecycle workflow's child), the invitation is caught by a local SMTP server,
// and the decision maker answers from the emailed link alone.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { responseTokenWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { portalLink, startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

const mayor = { name: 'Alex Mayor', title: 'Mayor of Springfield', email: 'mayor@springfield.test' };

describe('decision makers and the response portal', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mail: MailCatcher;
  let token: string;

  before(async () => {
    mail = await startMailCatcher();
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('decision-makers'), SMTP_URL: mail.url };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await mail.stop();
  });

  const call = (path: string, init: RequestInit & { as?: string | null } = {}) =>
    fetch(`${api.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(init.as === null ? {} : bearer(init.as ?? token)), ...(init.headers as object) },
    });
  const portal = (link: string, init: RequestInit = {}) =>
    fetch(link.replace(PUBLIC_URL, api.baseUrl), { ...init, headers: { 'content-type': 'application/json' } });
  const decisionMakers = async (petitionId: string) => (await json(await call(`/v1/petitions/${petitionId}/decision-makers`))).data;

  it('emails the portal link on publish; the decision maker reads the petition and answers once', async () => {
    const email = `mayor-${Date.now()}@springfield.test`;
    const petition = await publishedPetition(api.baseUrl, token, { decisionMakers: [{ ...mayor, email }] });
    const invitation = await mail.waitFor(email, /asks for your response/);
    const link = portalLink(invitation);
    expect(invitation.text).to.include(petition.title);
    // The delivery is recorded just after the mail server accepted the message.
    const [invited] = await eventually(
      async () => {
        const listed = await decisionMakers(petition.id);
        return listed[0].delivery_status === 'sent' ? listed : undefined;
      },
      10_000,
      'the delivery to be recorded',
    );
    expect(invited).to.include({ email, delivery_status: 'sent' });

    const opened = await portal(link);
    expect(opened.status).to.equal(200);
    const context = (await json(opened)).data;
    expect(context.petition).to.include({ id: petition.id, title: petition.title, signature_count: 0 });
    expect(context.petition.summary).to.be.a('string').and.not.equal('');
    expect(context.decision_maker).to.deep.equal({ name: mayor.name, title: mayor.title });
    expect(Date.parse(context.response_deadline)).to.be.greaterThan(Date.now() + 29 * 86_400_000);
    expect((await decisionMakers(petition.id))[0].delivery_status).to.equal('viewed');

    const answer = { status: 'supportive', body: 'We will keep the library open on Sundays from next month.' };
    const first = await portal(link, { method: 'POST', body: JSON.stringify(answer) });
    expect(first.status).to.equal(201);
    const response = (await json(first)).data;
    expect(response).to.include({ status: 'supportive', body: answer.body });
    const again = await portal(link, { method: 'POST', body: JSON.stringify(answer) });
    expect(again.status).to.equal(409);
    expect((await json(again)).code).to.equal('already_responded');
    expect((await decisionMakers(petition.id))[0].delivery_status).to.equal('responded');

    const submitted = await testEnvironment().db.anyFirst(
      sql.type(z.object({ type: z.string() }))`SELECT type FROM events WHERE petition_id = ${petition.id} AND type LIKE 'response.%'`,
    );
    expect(submitted).to.deep.equal(['response.submitted']);

    // The response ends the token's expiry workflow early.
    const tokenId = await testEnvironment().db.oneFirst(
      sql.type(z.object({ id: z.string() }))`SELECT id FROM response_tokens WHERE petition_id = ${petition.id}`,
    );
    const expiry = testEnvironment().temporal.client.workflow.getHandle(responseTokenWorkflowId(tokenId));
    expect(await expiry.result()).to.include({ outcome: 'responded', reminded: false });
    await captureHistory('response-token-responded-checked-at-start', expiry);
    const invitations = testEnvironment().temporal.client.workflow.getHandle(`decision-maker-invitations-${petition.id}`);
    expect(await invitations.result()).to.include({ sent: 1, failed: 0 });
    await captureHistory('decision-maker-invitations', invitations);
  });

  it('lists responses publicly only once the creator publishes them', async () => {
    const email = `council-${Date.now()}@springfield.test`;
    const petition = await publishedPetition(api.baseUrl, token, { decisionMakers: [{ ...mayor, email }] });
    const link = portalLink(await mail.waitFor(email, /asks for your response/));
    const response = (await json(await portal(link, { method: 'POST', body: JSON.stringify({ status: 'neutral', body: 'We are studying it.' }) }))).data;

    expect((await json(await call(`/v1/petitions/${petition.id}/responses`, { as: null }))).data).to.deep.equal([]);
    expect((await json(await call(`/v1/petitions/${petition.id}/responses`))).data.map((each: { id: string }) => each.id)).to.deep.equal([response.id]);
    const stranger = (await login(api.baseUrl, await createTestUser())).accessToken;
    expect((await call(`/v1/petitions/${petition.id}/responses/${response.id}/publish`, { method: 'POST', as: stranger })).status).to.equal(403);

    const published = await call(`/v1/petitions/${petition.id}/responses/${response.id}/publish`, { method: 'POST' });
    expect(published.status).to.equal(200);
    expect((await json(published)).data.published_at).to.be.a('string');
    expect((await call(`/v1/petitions/${petition.id}/responses/${response.id}/publish`, { method: 'POST' })).status).to.equal(409);
    const listed = (await json(await call(`/v1/petitions/${petition.id}/responses`, { as: null }))).data;
    expect(listed.map((each: { id: string; decision_maker: { name: string } }) => [each.id, each.decision_maker.name])).to.deep.equal([
      [response.id, mayor.name],
    ]);
    const types = await testEnvironment().db.anyFirst(
      sql.type(z.object({ type: z.string() }))`SELECT type FROM events WHERE petition_id = ${petition.id} AND type LIKE 'response.%' ORDER BY position`,
    );
    expect(types).to.deep.equal(['response.submitted', 'response.published']);
  });

  it('answers 404 for an unknown or malformed token', async () => {
    expect((await fetch(`${api.baseUrl}/respond/${'A'.repeat(43)}`)).status).to.equal(404);
    expect((await fetch(`${api.baseUrl}/respond/not-a-token`)).status).to.equal(404);
    const post = await fetch(`${api.baseUrl}/respond/${'B'.repeat(43)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'neutral', body: 'x' }),
    });
    expect(post.status).to.equal(404);
  });

  it('invites a decision maker added to an active petition at once, and not one added to a draft', async () => {
    const active = await publishedPetition(api.baseUrl, token);
    const email = `late-${Date.now()}@springfield.test`;
    const added = await call(`/v1/petitions/${active.id}/decision-makers`, { method: 'POST', body: JSON.stringify({ ...mayor, email }) });
    expect(added.status).to.equal(201);
    expect((await json(added)).data.delivery_status).to.equal('pending');
    await mail.waitFor(email, /asks for your response/);
    await eventually(async () => ((await decisionMakers(active.id))[0].delivery_status === 'sent' ? true : undefined), 10_000, 'the delivery to be recorded');

    const draft = await createPetition(api.baseUrl, token);
    const draftEmail = `draft-${Date.now()}@springfield.test`;
    expect(
      (await call(`/v1/petitions/${draft.id}/decision-makers`, { method: 'POST', body: JSON.stringify({ ...mayor, email: draftEmail }) })).status,
    ).to.equal(201);
    expect((await decisionMakers(draft.id))[0].delivery_status).to.equal('pending');
  });

  it('stops a removed decision maker’s link at once', async () => {
    const email = `removed-${Date.now()}@springfield.test`;
    const petition = await publishedPetition(api.baseUrl, token, { decisionMakers: [{ ...mayor, email }] });
    const link = portalLink(await mail.waitFor(email, /asks for your response/));
    const [person] = await decisionMakers(petition.id);
    const tokenId = await testEnvironment().db.oneFirst(
      sql.type(z.object({ id: z.string() }))`SELECT id FROM response_tokens WHERE decision_maker_id = ${person.id}`,
    );
    expect((await call(`/v1/petitions/${petition.id}/decision-makers/${person.id}`, { method: 'DELETE' })).status).to.equal(204);
    expect((await portal(link)).status).to.equal(404);
    expect(await decisionMakers(petition.id)).to.deep.equal([]);
    // Its expiry workflow has nothing left to wait for: cancelled, or, when the removal came before
    // it started, ended at its start.
    const expiry = testEnvironment().temporal.client.workflow.getHandle(responseTokenWorkflowId(tokenId));
    const status = await eventually(
      async () => {
        const name = await expiry.describe().then(
          (described) => described.status.name,
          () => undefined,
        );
        return name === 'CANCELLED' || name === 'COMPLETED' ? name : undefined;
      },
      10_000,
      'the expiry workflow to end',
    );
    if (status === 'COMPLETED') expect(await expiry.result()).to.include({ outcome: 'removed' });
  });

  describe('invitation budgets of POST /v1/petitions/{id}/decision-makers', () => {
    const add = (petitionId: string, email: string, as?: string) =>
      call(`/v1/petitions/${petitionId}/decision-makers`, { method: 'POST', as, body: JSON.stringify({ ...mayor, email }) });
    const refusal = async (response: Response) => ({
      status: response.status,
      code: (await json(response)).code,
      retryAfter: Number(response.headers.get('retry-after')),
    });

    it('answers 429 address_recently_invited when a removed decision maker is added again within the week', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const email = `again-${Date.now()}@springfield.test`;
      const first = (await json(await add(petition.id, email))).data;
      expect((await call(`/v1/petitions/${petition.id}/decision-makers/${first.id}`, { method: 'DELETE' })).status).to.equal(204);
      const again = await refusal(await add(petition.id, email.toUpperCase()));
      expect(again).to.include({ status: 429, code: 'address_recently_invited' });
      expect(again.retryAfter).to.be.greaterThan(6 * 86_400);
      // Another petition may still invite that address.
      expect((await add((await publishedPetition(api.baseUrl, token)).id, email)).status).to.equal(201);
    });

    it('invites an address a draft names twice only once when the petition is published', async () => {
      const email = `twice-${Date.now()}@springfield.test`;
      const petition = await publishedPetition(api.baseUrl, token, {
        decisionMakers: [
          { ...mayor, email },
          { ...mayor, name: 'Alex Mayor (again)', email: email.toUpperCase() },
        ],
      });
      // Either spelling may win; the other is not mailed.
      const invitationsTo = () =>
        mail.messages.filter((message) => message.to.some((to) => to.toLowerCase() === email) && /asks for your response/.test(message.subject));
      await eventually(async () => (invitationsTo().length > 0 ? true : undefined), 30_000, 'the invitation');
      const listed = await eventually(
        async () => {
          const people = await decisionMakers(petition.id);
          return people.every((person: { delivery_status: string }) => person.delivery_status !== 'pending') ? people : undefined;
        },
        15_000,
        'both invitations to be decided',
      );
      expect(listed.map((person: { delivery_status: string }) => person.delivery_status).sort()).to.deep.equal(['failed', 'sent']);
      expect(listed.find((person: { delivery_status: string }) => person.delivery_status === 'failed').delivery_error).to.match(/already invited/);
      expect(invitationsTo()).to.have.length(1);
    });

    it('answers 429 invitation_limit past 50 invitations of one petition a day, removed decision makers included', async () => {
      const owner = (await login(api.baseUrl, await createTestUser())).accessToken;
      const petition = await publishedPetition(api.baseUrl, owner);
      const stamp = Date.now();
      const added = [];
      for (let index = 0; index < 50; index += 1) {
        const response = await add(petition.id, `budget-${stamp}-${index}@springfield.test`, owner);
        expect(response.status, `invitation ${index + 1}`).to.equal(201);
        added.push((await json(response)).data.id);
      }
      expect((await call(`/v1/petitions/${petition.id}/decision-makers/${added[0]}`, { method: 'DELETE', as: owner })).status).to.equal(204);
      const refused = await refusal(await add(petition.id, `budget-${stamp}-extra@springfield.test`, owner));
      expect(refused).to.include({ status: 429, code: 'invitation_limit' });
      expect(refused.retryAfter).to.be.within(1, 86_400);
    });

    it("answers 429 invitation_limit past 200 invitations a day across one creator's petitions", async () => {
      const user = await createTestUser();
      const owner = (await login(api.baseUrl, user)).accessToken;
      const earlier = await publishedPetition(api.baseUrl, owner);
      // 200 invitations sent from the creator's other petition in the last hours, as the log records them.
      await testEnvironment().db.query(sql.typeAlias('void')`
        INSERT INTO decision_maker_invitation_log (decision_maker_id, petition_id, creator_id, email_hash, invited_at)
        SELECT gen_random_uuid(), ${earlier.id}, ${user.id}, sha256(convert_to(n::text, 'UTF8')), now() - interval '2 hours'
        FROM generate_series(1, 200) AS n
      `);
      const petition = await publishedPetition(api.baseUrl, owner);
      const refused = await refusal(await add(petition.id, `creator-${Date.now()}@springfield.test`, owner));
      expect(refused).to.include({ status: 429, code: 'invitation_limit' });
      expect(refused.retryAfter).to.be.within(22 * 3_600 - 60, 22 * 3_600);
    });
  });

  it('keeps the decision makers to the creator: 403 for others, 404 for no petition', async () => {
    const petition = await createPetition(api.baseUrl, token, { decisionMakers: [mayor] });
    const stranger = (await login(api.baseUrl, await createTestUser())).accessToken;
    expect((await call(`/v1/petitions/${petition.id}/decision-makers`, { as: stranger })).status).to.equal(403);
    expect((await call(`/v1/petitions/${petition.id}/decision-makers`, { method: 'POST', as: stranger, body: JSON.stringify(mayor) })).status).to.equal(403);
    expect((await call('/v1/petitions/00000000-0000-4000-8000-000000000000/decision-makers')).status).to.equal(404);
    expect(
      (await call(`/v1/petitions/${petition.id}/decision-makers`, { method: 'POST', body: JSON.stringify({ ...mayor, email: 'not-an-email' }) })).status,
    ).to.equal(422);
  });
});
