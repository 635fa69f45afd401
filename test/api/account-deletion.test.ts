// Deleting an account (issue 46): DELETE /v1/users/me after a fresh login, by an administrator with a
// reason, and what stays: anonymous signatures still counted, "[deleted]" comments with their replies,
// petitions by "a former member", reports without their reporter.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, establishUsers, login, type TestUser } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('account deletion', function () {
  this.timeout(240_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let admin: { id: string; token: string };
  const taskQueue = uniqueTaskQueue('account-deletion');
  const db = () => testEnvironment().db;

  before(async () => {
    const env = { RALLY_TASK_QUEUE: taskQueue };
    api = await startApi(env);
    worker = await startWorker(env);
    const adminUser = await createTestUser({ admin: true });
    admin = { id: adminUser.id, token: (await login(api.baseUrl, adminUser)).accessToken };
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const call = async (method: string, route: string, token?: string, body?: unknown) => {
    const response = await fetch(`${api.baseUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? undefined : await json(response), location: response.headers.get('location') };
  };
  const completed = async (route: string, token: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await call('GET', route, token);
      if (answer.body?.data?.status === 'completed') return answer.body.data;
      if (Date.now() > deadline) throw new Error(`the deletion did not complete: ${JSON.stringify(answer.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const person = async (): Promise<TestUser & { token: string; refreshToken: string }> => {
    const user = await createTestUser({ name: 'Grace Hopper' });
    const session = await login(api.baseUrl, user);
    return { ...user, token: session.accessToken, refreshToken: session.refreshToken };
  };

  it('needs a fresh login: a login older than RALLY_SENSITIVE_ACTION_MAX_AGE, or an API key, answers 401 reauthentication_required', async () => {
    const user = await person();
    const key = await createApiKey(api.baseUrl, user.token, 'full');
    const byKey = await call('DELETE', '/v1/users/me', key.key);
    expect(byKey.status).to.equal(401);
    expect(byKey.body.code).to.equal('reauthentication_required');
    await db().query(sql.typeAlias('void')`UPDATE refresh_tokens SET created_at = now() - interval '16 minutes' WHERE user_id = ${user.id}`);
    const stale = await call('DELETE', '/v1/users/me', user.token);
    expect(stale.status).to.equal(401);
    expect(stale.body.code).to.equal('reauthentication_required');
    expect((await call('GET', '/v1/users/me', user.token)).status, 'nothing was revoked').to.equal(200);
  });

  it('lets a suspended person delete their account (and read its status), while every other route still refuses them', async () => {
    const user = await person();
    await db().query(sql.typeAlias('void')`UPDATE users SET suspended_at = now() WHERE id = ${user.id}`);
    await db().query(sql.typeAlias('void')`SELECT FROM pg_notify('rally_user_changed', ${user.id})`);
    const me = await call('GET', '/v1/users/me', user.token);
    expect(me.status).to.equal(403);
    expect(me.body.code).to.equal('account_suspended');
    const asked = await call('DELETE', '/v1/users/me', user.token);
    expect(asked.status).to.equal(202);
    expect((await call('GET', '/v1/users/me/deletion', user.token)).status).to.be.oneOf([200, 401]);
    await completed(`/v1/admin/users/${user.id}/deletion`, admin.token);
  });

  it('answers 409 sole_owner naming the organizations they own, and deletes once ownership is transferred', async () => {
    const user = await person();
    const created = await call('POST', '/v1/organizations', user.token, { name: 'Friends of the Library' });
    expect(created.status).to.equal(201);
    const refused = await call('DELETE', '/v1/users/me', user.token);
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('sole_owner');
    expect(refused.body.detail).to.include('Friends of the Library');
    expect((await call('GET', '/v1/users/me', user.token)).status, 'nothing was revoked').to.equal(200);
    const other = await createTestUser();
    // An organization has one owner; handing it over leaves the person an admin of it.
    await db().query(sql.typeAlias('void')`
      UPDATE organization_members SET user_id = ${other.id} WHERE org_id = ${created.body.data.id} AND role = 'owner'
    `);
    await db().query(sql.typeAlias('void')`
      INSERT INTO organization_members (org_id, user_id, role) VALUES (${created.body.data.id}, ${user.id}, 'admin')
    `);
    expect((await call('DELETE', '/v1/users/me', user.token)).status).to.equal(202);
  });

  it('refuses to delete the last active administrator (409 last_admin)', async () => {
    const lastAdmin = await createTestUser({ admin: true });
    const token = (await login(api.baseUrl, lastAdmin)).accessToken;
    const others = await db().anyFirst(sql.type(z.object({ id: z.string() }))`
      UPDATE users SET suspended_at = now() WHERE role = 'admin' AND suspended_at IS NULL AND id <> ${lastAdmin.id} RETURNING id
    `);
    try {
      const refused = await call('DELETE', '/v1/users/me', token);
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('last_admin');
    } finally {
      await db().query(sql.typeAlias('void')`UPDATE users SET suspended_at = NULL WHERE id = ANY (${sql.array([...others], 'uuid')})`);
    }
  });

  it('ends every login at once, anonymises signatures (count unchanged, no signature.removed), keeps replies and petitions', async () => {
    const user = await person();
    await establishUsers([user.id]);
    const key = await createApiKey(api.baseUrl, user.token, 'full');
    const creator = await person();
    const theirs = await publishedPetition(api.baseUrl, user.token, { title: 'Plant trees along the river path' });
    const petition = await publishedPetition(api.baseUrl, creator.token);
    expect(
      (await call('POST', `/v1/petitions/${petition.id}/signatures`, user.token, { comment: 'My street needs this', display_location: 'Leeds' })).status,
    ).to.equal(201);
    const comment = await call('POST', `/v1/petitions/${petition.id}/comments`, user.token, { body: 'I walk there every day' });
    expect(comment.status).to.equal(201);
    expect(
      (await call('POST', `/v1/petitions/${petition.id}/comments`, creator.token, { body: 'Thank you!', parent_id: comment.body.data.id })).status,
    ).to.equal(201);
    const report = await call('POST', '/v1/reports', user.token, { target_type: 'petition', target_id: theirs.id, reason: 'spam' });
    expect(report.status).to.equal(201);
    const before = (await call('GET', `/v1/petitions/${petition.id}`)).body.data.signature_count;

    const first = await call('DELETE', '/v1/users/me', user.token);
    expect(first.status).to.equal(202);
    expect(first.location).to.equal('/v1/users/me/deletion');
    expect(first.body.data).to.include({ user_id: user.id, workflow_id: `account-deletion-${user.id}` });
    const again = await call('DELETE', '/v1/users/me', user.token);
    expect(again.status, 'deleting twice').to.equal(202);
    expect(again.body.data.workflow_id).to.equal(first.body.data.workflow_id);
    expect(again.body.data.requested_at).to.equal(first.body.data.requested_at);

    // From the first second: no new login, no refresh, no API key.
    const relogin = await fetch(`${api.baseUrl}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: user.password }),
    });
    expect(relogin.status).to.equal(401);
    expect((await call('POST', '/v1/auth/refresh', undefined, { refresh_token: user.refreshToken })).status).to.equal(401);
    expect((await call('GET', '/v1/users/me', key.key)).status).to.equal(401);

    const done = await completed(`/v1/admin/users/${user.id}/deletion`, admin.token);
    expect(done.completed_at).to.be.a('string');
    expect((await call('GET', '/v1/users/me/deletion', user.token)).status, 'the account is gone').to.equal(401);

    expect((await call('GET', `/v1/petitions/${petition.id}`)).body.data.signature_count).to.equal(before);
    const signatures = (await call('GET', `/v1/petitions/${petition.id}/signatures`)).body.data;
    expect(signatures).to.have.length(1);
    expect(signatures[0]).to.include({ is_anonymous: true, comment: null, display_location: null, user: null });
    const removed = await db().oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM events WHERE type = 'signature.removed' AND petition_id = ${petition.id}
    `);
    expect(removed).to.equal(0);

    const thread = (await call('GET', `/v1/petitions/${petition.id}/comments`)).body.data;
    expect(thread[0]).to.include({ body: '[deleted]', author: null, is_deleted: true });
    expect(thread[0].replies.map((reply: { body: string }) => reply.body)).to.deep.equal(['Thank you!']);

    const kept = (await call('GET', `/v1/petitions/${theirs.id}`)).body.data;
    expect(kept.status).to.equal('active');
    expect(kept.creator.display_name).to.equal('a former member');
    const reports = (await call('GET', '/v1/admin/reports?limit=100', admin.token)).body.data;
    expect(reports.find((entry: { id: string }) => entry.id === report.body.data.id)).to.include({ reporter_id: null, reason: 'spam' });
  });

  it("closes the creator's active petitions first when they choose close_petitions (a draft stays a draft); 422 for a non-boolean", async () => {
    const user = await person();
    const active = await publishedPetition(api.baseUrl, user.token, { title: 'Light the underpass at night' });
    const draft = await call('POST', '/v1/petitions', user.token, {
      title: 'A draft never published',
      description: 'A description long enough to satisfy the fifty character minimum rule.',
    });
    expect(draft.status).to.equal(201);
    const wrong = await call('DELETE', '/v1/users/me', user.token, { close_petitions: 'yes' });
    expect(wrong.status).to.equal(422);
    expect(wrong.body.errors[0].field).to.equal('close_petitions');

    expect((await call('DELETE', '/v1/users/me', user.token, { close_petitions: true })).status).to.equal(202);
    await completed(`/v1/admin/users/${user.id}/deletion`, admin.token);
    const closed = (await call('GET', `/v1/petitions/${active.id}`)).body.data;
    expect(closed).to.deep.include({ status: 'closed' });
    expect(closed.creator.display_name).to.equal('a former member');
    const kept = await db().one(sql.type(z.object({ status: z.string(), closed_events: z.number() }))`
      SELECT (SELECT status FROM petitions WHERE id = ${draft.body.data.id}) AS status,
        (SELECT count(*)::int FROM events WHERE type = 'petition.closed' AND petition_id = ${active.id}) AS closed_events
    `);
    expect(kept).to.deep.equal({ status: 'draft', closed_events: 1 });
  });

  it('lets an administrator delete an account with a reason (422 without), audit-logged without personal data', async () => {
    const user = await person();
    const missing = await call('DELETE', `/v1/admin/users/${user.id}`, admin.token, {});
    expect(missing.status).to.equal(422);
    expect(missing.body.errors[0].field).to.equal('reason');
    const member = await person();
    expect((await call('DELETE', `/v1/admin/users/${user.id}`, member.token, { reason: 'x' })).status).to.equal(403);
    const accepted = await call('DELETE', `/v1/admin/users/${user.id}`, admin.token, { reason: 'Asked by letter' });
    expect(accepted.status).to.equal(202);
    expect(accepted.location).to.equal(`/v1/admin/users/${user.id}/deletion`);
    await completed(`/v1/admin/users/${user.id}/deletion`, admin.token);
    const audit = await call('GET', `/v1/admin/audit-logs?action=user.deleted&actor_id=${admin.id}`, admin.token);
    const row = audit.body.data.find((entry: { target_id: string }) => entry.target_id === user.id);
    expect(row).to.deep.include({ actor_id: admin.id, after: { reason: 'Asked by letter' }, before: null });
    expect(JSON.stringify(row)).not.to.include(user.email).and.not.to.include('Grace');
    expect((await call('DELETE', `/v1/admin/users/${crypto.randomUUID()}`, admin.token, { reason: 'x' })).status).to.equal(404);
    // An organization's own key-holding account is not a person's: its organization would lose its keys' owner.
    const org = await call('POST', '/v1/organizations', member.token, { name: 'Keys of their own' });
    const service = await createTestUser();
    await db().query(sql.typeAlias('void')`UPDATE organizations SET service_user_id = ${service.id} WHERE id = ${org.body.data.id}`);
    const refused = await call('DELETE', `/v1/admin/users/${service.id}`, admin.token, { reason: 'x' });
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('organization_account');
  });
});
