// Organization invitations end to end: the API starts the organizationInvitation workflow, the
// worker emails the token (caught by a local SMTP server), the invitee accepts it with their access
// token; an invitation left alone is reminded once and expires, even across a worker restart.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { createInvitationActivities, invitationDependencies } from '../../activities/organization-invitations.ts';
import { sql } from '../../db/sql.ts';
import { loadConfig } from '../../platform/config.ts';
import { organizationInvitationWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../support/smtp.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

type Person = TestUser & { token: string };

describe('organization invitations', function () {
  // A worker restart on a busy machine can take a minute.
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mail: MailCatcher;
  let owner: Person;
  const TTL_MS = 6_000;
  let env: Record<string, string>;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const post = (path: string, token: string, body?: unknown) =>
    fetch(`${api.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const acceptLink = (message: CaughtMail) => {
    const link = /https?:\/\/\S+\/v1\/invitations\/[A-Za-z0-9_-]{43}\/accept/.exec(message.text)?.[0];
    if (!link) throw new Error(`no invitation link in:\n${message.raw}`);
    return link.replace(PUBLIC_URL, '');
  };
  async function organization() {
    const response = await post('/v1/organizations', owner.token, { name: `Night Buses ${randomUUID().slice(0, 8)}` });
    return (await json(response)).data as { id: string; slug: string };
  }

  before(async () => {
    mail = await startMailCatcher();
    env = { RALLY_TASK_QUEUE: uniqueTaskQueue('invitations'), SMTP_URL: mail.url, RALLY_INVITATION_TTL: `${TTL_MS / 1000}s` };
    // One after the other: on a busy machine the worker's bundling slows the API's start past its limit.
    api = await startApi(env);
    worker = await startWorker(env);
    owner = await person();
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await mail.stop();
  });

  it('emails a single-use token; accepting makes the invitee a member with the invited role', async () => {
    const org = await organization();
    const invitee = await person();
    const created = await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: invitee.email, role: 'admin' });
    expect(created.status).to.equal(201);
    const invitation = (await json(created)).data;
    expect(invitation).to.include({ organization_id: org.id, email: invitee.email, role: 'admin' }).and.not.have.property('token');
    const link = acceptLink(await mail.waitFor(invitee.email, /invited to join/));

    const accepted = await post(link, invitee.token);
    expect(accepted.status).to.equal(201);
    expect((await json(accepted)).data).to.include({ user_id: invitee.id, role: 'admin' });
    expect((await post(link, invitee.token)).status).to.equal(409);

    const handle = testEnvironment().temporal.client.workflow.getHandle(organizationInvitationWorkflowId(invitation.id));
    expect(await handle.result()).to.include({ outcome: 'accepted' });
    await captureHistory('organization-invitation-accepted', handle);
    const stored = await testEnvironment().db.oneFirst(sql.type(z.object({ token_hash: z.instanceof(Buffer) }))`
      SELECT token_hash FROM organization_invitations WHERE id = ${invitation.id}`);
    expect(stored.toString('latin1')).to.not.include(link.split('/')[3]);
  });

  it('refuses an invitation accepted by a user with another email; the invited user can still accept it', async () => {
    const org = await organization();
    // The invited address differs from the account's only in case: it is the same address.
    const invitee = await createTestUser({ email: `Invitee-${randomUUID().slice(0, 8)}@Example.test` });
    const inviteeToken = (await login(api.baseUrl, invitee)).accessToken;
    const forwardedTo = await person();
    const invited = invitee.email.toLowerCase();
    expect((await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: invited, role: 'admin' })).status).to.equal(201);
    const link = acceptLink(await mail.waitFor(invited, /invited to join/));

    const refused = await post(link, forwardedTo.token);
    expect(refused.status).to.equal(403);
    expect((await json(refused)).code).to.equal('invitation_email_mismatch');
    const members = await json(await fetch(`${api.baseUrl}/v1/organizations/${org.id}/members`, { headers: bearer(owner.token) }));
    expect(members.data.map((entry: { user_id: string }) => entry.user_id)).to.not.include(forwardedTo.id);

    const accepted = await post(link, inviteeToken);
    expect(accepted.status).to.equal(201);
    expect((await json(accepted)).data).to.include({ user_id: invitee.id, role: 'admin' });
  });

  it('refuses an invitation accepted from an account whose email is not verified; it stays open until it is', async () => {
    const org = await organization();
    const invitee = await person();
    const setVerified = (verified: boolean) =>
      testEnvironment().db.query(sql.typeAlias('void')`UPDATE users SET email_verified = ${verified} WHERE id = ${invitee.id}`);
    expect((await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: invitee.email, role: 'admin' })).status).to.equal(201);
    const link = acceptLink(await mail.waitFor(invitee.email, /invited to join/));

    await setVerified(false);
    const refused = await post(link, invitee.token);
    expect(refused.status).to.equal(403);
    expect((await json(refused)).code).to.equal('email_not_verified');

    await setVerified(true);
    const accepted = await post(link, invitee.token);
    expect(accepted.status).to.equal(201);
    expect((await json(accepted)).data).to.include({ user_id: invitee.id, role: 'admin' });
  });

  it('answers 403 to a plain member, 409 for an open invitation to the same address and 404 for an unknown token', async () => {
    const org = await organization();
    const member = await person();
    await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: member.id, role: 'member' });
    expect((await post(`/v1/organizations/${org.id}/invitations`, member.token, { email: 'someone@example.test', role: 'member' })).status).to.equal(403);
    const email = `twice-${randomUUID().slice(0, 8)}@example.test`;
    expect((await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email, role: 'member' })).status).to.equal(201);
    expect((await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: email.toUpperCase(), role: 'member' })).status).to.equal(409);
    expect((await post(`/v1/invitations/${'A'.repeat(43)}/accept`, member.token)).status).to.equal(404);
    expect((await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: 'not an email', role: 'member' })).status).to.equal(422);
  });

  it('emails the same link again when the worker dies after sending and before marking it sent; that link still works', async () => {
    const org = await organization();
    const invitee = await person();
    const invitation = (await json(await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: invitee.email, role: 'member' }))).data;
    const first = acceptLink(await mail.waitFor(invitee.email, /invited to join/));
    // The crash's state: the email left, its sending was never recorded; the activity runs again.
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE organization_invitations SET sent_at = NULL WHERE id = ${invitation.id}`);
    const activities = createInvitationActivities(invitationDependencies(testEnvironment().db, loadConfig({ ...process.env, PUBLIC_URL, ...env })));
    expect(await activities.sendOrganizationInvitation({ invitationId: invitation.id })).to.equal(true);
    const sent = mail.messages.filter((message) => message.to.includes(invitee.email) && /invited to join/.test(message.subject));
    expect(sent.map(acceptLink)).to.deep.equal([first, first]);
    expect((await post(first, invitee.token)).status).to.equal(201);
  });

  it('reminds once and expires the invitation after RALLY_INVITATION_TTL, across a worker restart (410)', async () => {
    const org = await organization();
    const invitee = await person();
    const created = await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: invitee.email, role: 'member' });
    const invitation = (await json(created)).data;
    const link = acceptLink(await mail.waitFor(invitee.email, /invited to join/, 90_000));

    await worker.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    worker = await startWorker(env);

    const handle = testEnvironment().temporal.client.workflow.getHandle(organizationInvitationWorkflowId(invitation.id));
    expect(await handle.result()).to.deep.equal({ invitationId: invitation.id, outcome: 'expired', reminded: true });
    await captureHistory('organization-invitation-expired', handle);
    await mail.waitFor(invitee.email, /Reminder: your invitation/, 60_000);
    const response = await post(link, invitee.token);
    expect(response.status).to.equal(410);
    expect((await json(response)).code).to.equal('invitation_expired');
  });

  it("answers 402 on accepting when the tier's member limit is reached", async () => {
    const org = await organization();
    const invitee = await person();
    await post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: invitee.email, role: 'member' });
    const link = acceptLink(await mail.waitFor(invitee.email, /invited to join/));
    for (let index = 0; index < 4; index += 1)
      await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: (await createTestUser()).id, role: 'member' });
    const response = await post(link, invitee.token);
    expect(response.status).to.equal(402);
    expect((await json(response)).code).to.equal('member_limit_reached');
  });
});
