// The admin API: who may call it (401/403 matrix), reports and their actions, users and
// suspensions (timed ones end by themselves), warnings, comments, petitions under review, signature
// removal, metrics, and the append-only audit log that records each of these.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('admin API', function () {
  this.timeout(240_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mailDir: string;
  let admin: { id: string; token: string; fullKey: string; readKey: string };
  let member: { id: string; token: string; fullKey: string };
  let creatorToken: string;
  const taskQueue = uniqueTaskQueue('admin');
  const db = () => testEnvironment().db;

  before(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'rally-admin-mail-'));
    const env = { RALLY_TASK_QUEUE: taskQueue, RALLY_MAIL_DIR: mailDir };
    // One after the other: on a loaded machine, starting both at once can starve the API's start-up.
    api = await startApi(env);
    worker = await startWorker(env);
    const adminUser = await createTestUser({ admin: true });
    const adminToken = (await login(api.baseUrl, adminUser)).accessToken;
    admin = {
      id: adminUser.id,
      token: adminToken,
      fullKey: (await createApiKey(api.baseUrl, adminToken, 'full')).key,
      readKey: (await createApiKey(api.baseUrl, adminToken, 'read')).key,
    };
    const memberUser = await createTestUser();
    const memberToken = (await login(api.baseUrl, memberUser)).accessToken;
    member = { id: memberUser.id, token: memberToken, fullKey: (await createApiKey(api.baseUrl, memberToken, 'full')).key };
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const call = async (method: string, route: string, token?: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.baseUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? undefined : await json(response) };
  };
  const eventually = async (check: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const report = async (token: string, targetType: string, targetId: string) => {
    const response = await call('POST', '/v1/reports', token, { target_type: targetType, target_id: targetId, reason: 'spam' });
    expect(response.status).to.equal(201);
    return response.body.data;
  };
  const comment = async (petitionId: string, token: string) =>
    (await call('POST', `/v1/petitions/${petitionId}/comments`, token, { body: 'A comment to moderate' })).body.data;
  const auditActions = (targetId: string) =>
    db().anyFirst(sql.type(z.object({ action: z.string() }))`SELECT action FROM audit_logs WHERE target_id = ${targetId} ORDER BY created_at`);

  describe('who may call it', () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const routes: [string, string, unknown?][] = [
      ['GET', '/v1/admin/reports'],
      ['POST', `/v1/admin/reports/${id}/action`, { action: 'dismiss' }],
      ['GET', '/v1/admin/users?email=a'],
      ['POST', `/v1/admin/users/${id}/suspend`, { reason: 'x' }],
      ['POST', `/v1/admin/users/${id}/unsuspend`],
      ['GET', '/v1/admin/metrics'],
      ['GET', '/v1/admin/audit-logs'],
      ['GET', '/v1/admin/warnings'],
      ['POST', '/v1/admin/warnings', { user_id: id, reason: 'r', message: 'm' }],
      ['POST', `/v1/admin/comments/${id}/hide`],
      ['POST', `/v1/admin/comments/${id}/unhide`],
      ['POST', `/v1/admin/petitions/${id}/close`],
      ['POST', `/v1/admin/petitions/${id}/review`],
      ['POST', `/v1/admin/petitions/${id}/restore`],
      ['DELETE', `/v1/admin/petitions/${id}/signatures/${id}`],
      ['POST', `/v1/admin/petitions/${id}/invalidate-signatures`, { filter: { email_domain: 'x.test' }, dry_run: true }],
      ['GET', `/v1/admin/signature-invalidations/${id}`],
    ];

    it('answers 401 without a bearer, 403 to non-admins and to read-only keys, and serves admins by token or full-scope key', async () => {
      for (const [method, route, body] of routes) {
        const label = `${method} ${route}`;
        expect((await call(method, route, undefined, body)).status, `${label} anonymous`).to.equal(401);
        const asMember = await call(method, route, member.token, body);
        expect([asMember.status, asMember.body.code], `${label} member token`).to.deep.equal([403, 'admin_required']);
        expect((await call(method, route, member.fullKey, body)).status, `${label} member full key`).to.equal(403);
        const asReadKey = await call(method, route, admin.readKey, body);
        expect([asReadKey.status, asReadKey.body.code], `${label} admin read key`).to.deep.equal([403, 'insufficient_scope']);
        for (const credential of [admin.token, admin.fullKey]) {
          expect((await call(method, route, credential, body)).status, `${label} admin`).to.be.oneOf([200, 204, 404]);
        }
      }
    });
  });

  describe('GET /v1/admin/reports and POST /v1/admin/reports/{id}/action', () => {
    it('lists reports by status and target type, a page at a time', async () => {
      const [reporter, target, other] = await createTokenUsers(3);
      await report(reporter!.access_token, 'user', target!.id);
      await report(reporter!.access_token, 'user', other!.id);
      const first = await call('GET', '/v1/admin/reports?status=open&target_type=user&limit=1', admin.token);
      expect(first.status).to.equal(200);
      expect(first.body.data).to.have.length(1);
      expect(first.body.data[0]).to.include({ target_type: 'user', status: 'open', target_id: other!.id });
      expect(first.body.pagination.has_more).to.equal(true);
      const second = await call('GET', `/v1/admin/reports?status=open&target_type=user&limit=1&cursor=${first.body.pagination.next_cursor}`, admin.token);
      expect(second.body.data[0].target_id).to.equal(target!.id);
      expect((await call('GET', '/v1/admin/reports?status=closed', admin.token)).status).to.equal(422);
    });

    it('hides a reported comment, resolving its reports, and refuses to act on a resolved report', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [author, reporter, another] = await createTokenUsers(3);
      const target = await comment(petition.id, author!.access_token);
      const filed = await report(reporter!.access_token, 'comment', target.id);
      const alsoFiled = await report(another!.access_token, 'comment', target.id);
      const acted = await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.token, { action: 'hide', note: 'Spam link' });
      expect(acted.status).to.equal(200);
      expect(acted.body.data).to.include({ id: filed.id, status: 'resolved', action: 'hide', resolution_note: 'Spam link', resolved_by: admin.id });
      const listed = (await call('GET', `/v1/petitions/${petition.id}/comments`)).body.data.map((each: { id: string }) => each.id);
      expect(listed).to.not.include(target.id);
      const open = (await call('GET', '/v1/admin/reports?status=open&target_type=comment&limit=100', admin.token)).body.data.map(
        (each: { id: string }) => each.id,
      );
      expect(open).to.not.include(alsoFiled.id);
      const again = await call('POST', `/v1/admin/reports/${alsoFiled.id}/action`, admin.token, { action: 'dismiss' });
      expect([again.status, again.body.code]).to.deep.equal([409, 'report_not_open']);
      expect((await call('POST', `/v1/admin/reports/${crypto.randomUUID()}/action`, admin.token, { action: 'dismiss' })).status).to.equal(404);
      expect((await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.token, { action: 'delete' })).status).to.equal(422);
    });

    it('restores a hidden comment through its open report', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [author, reporter] = await createTokenUsers(2);
      const target = await comment(petition.id, author!.access_token);
      const filed = await report(reporter!.access_token, 'comment', target.id);
      expect((await call('POST', `/v1/admin/comments/${target.id}/hide`, admin.token)).status).to.equal(200);
      const restored = await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.fullKey, { action: 'restore' });
      expect(restored.body.data).to.include({ status: 'resolved', action: 'restore' });
      const listed = (await call('GET', `/v1/petitions/${petition.id}/comments`)).body.data.map((each: { id: string }) => each.id);
      expect(listed).to.include(target.id);
      expect(await auditActions(target.id)).to.deep.equal(['comment.hidden', 'comment.unhidden']);
    });

    it('dismisses a report with an audit row naming the admin, the credential and the request id', async () => {
      const [reporter, target] = await createTokenUsers(2);
      const filed = await report(reporter!.access_token, 'user', target!.id);
      const requestId = `req-${crypto.randomUUID()}`;
      const acted = await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.token, { action: 'dismiss' }, { 'X-Request-Id': requestId });
      expect(acted.body.data).to.include({ status: 'dismissed', action: 'dismiss' });
      const log = await call('GET', `/v1/admin/audit-logs?action=report.actioned&actor_id=${admin.id}`, admin.token);
      const entry = log.body.data.find((each: { target_id: string }) => each.target_id === filed.id);
      expect(entry).to.include({ actor_type: 'user', actor_id: admin.id, target_type: 'report', request_id: requestId });
      expect(entry.credential).to.match(/^access_token:/);
      expect(entry.before).to.deep.equal({ status: 'open' });
      expect(entry.after).to.include({ action: 'dismiss', target_type: 'user', target_id: target!.id });
    });

    it('warns and suspends the author of a reported comment', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [author, reporter] = await createTokenUsers(2);
      const target = await comment(petition.id, author!.access_token);
      const warned = await call('POST', `/v1/admin/reports/${(await report(reporter!.access_token, 'comment', target.id)).id}/action`, admin.token, {
        action: 'warn_user',
        note: 'Keep it civil.',
      });
      expect(warned.status).to.equal(200);
      const notifications = await call('GET', '/v1/notifications', author!.access_token);
      expect(notifications.body.data.map((each: { type: string; body: string }) => [each.type, each.body])).to.deep.include([
        'moderation.warning',
        'Keep it civil.',
      ]);

      const suspended = await call('POST', `/v1/admin/reports/${(await report(reporter!.access_token, 'comment', target.id)).id}/action`, admin.token, {
        action: 'suspend_user',
      });
      expect(suspended.status).to.equal(200);
      const refused = await call('GET', '/v1/me', author!.access_token);
      expect([refused.status, refused.body.code]).to.deep.equal([403, 'account_suspended']);
    });
  });

  describe('admin users and suspension', () => {
    it('finds users by email prefix or exact email, case-insensitively, and by role and suspension', async () => {
      const user = await createTestUser();
      const prefix = user.email.slice(0, 12).toUpperCase();
      const found = await call('GET', `/v1/admin/users?email=${encodeURIComponent(prefix)}`, admin.token);
      expect(found.body.data.map((each: { id: string }) => each.id)).to.deep.equal([user.id]);
      expect(found.body.data[0]).to.include({ email: user.email, role: 'user', suspended: false });
      const exact = await call('GET', `/v1/admin/users?email=${encodeURIComponent(user.email.toUpperCase())}`, admin.token);
      expect(exact.body.data).to.have.length(1);
      const admins = await call('GET', '/v1/admin/users?role=admin&limit=100', admin.token);
      expect(admins.body.data.map((each: { id: string }) => each.id)).to.include(admin.id);
      expect(admins.body.data.every((each: { role: string }) => each.role === 'admin')).to.equal(true);
    });

    it('refuses a suspended user’s access token and API key with 403 at once, and serves them again after unsuspend', async () => {
      const user = await createTestUser();
      const token = (await login(api.baseUrl, user)).accessToken;
      const key = (await createApiKey(api.baseUrl, token, 'read')).key;
      expect((await call('GET', '/v1/me', token)).status).to.equal(200);
      const suspended = await call('POST', `/v1/admin/users/${user.id}/suspend`, admin.token, { reason: 'Abuse' });
      expect(suspended.status).to.equal(200);
      expect(suspended.body.data).to.include({ id: user.id, suspended: true, suspension_reason: 'Abuse', suspended_until: null });
      for (const credential of [token, key]) {
        const refused = await call('GET', '/v1/me', credential);
        expect([refused.status, refused.body.code]).to.deep.equal([403, 'account_suspended']);
      }
      expect((await call('GET', '/v1/admin/users?suspended=true&limit=100', admin.token)).body.data.map((each: { id: string }) => each.id)).to.include(user.id);
      const lifted = await call('POST', `/v1/admin/users/${user.id}/unsuspend`, admin.token);
      expect(lifted.body.data).to.include({ suspended: false, suspended_at: null });
      expect((await call('GET', '/v1/me', token)).status).to.equal(200);
      expect((await call('GET', '/v1/me', key)).status).to.equal(200);
      expect(await auditActions(user.id)).to.deep.equal(['user.suspended', 'user.unsuspended']);
    });

    it('ends a timed suspension by itself', async () => {
      const user = await createTestUser();
      const token = (await login(api.baseUrl, user)).accessToken;
      const until = new Date(Date.now() + 3_000).toISOString();
      // The same instant; PostgreSQL writes fractions without trailing zeros (.68 for .680).
      const suspendedUntil = (await call('POST', `/v1/admin/users/${user.id}/suspend`, admin.token, { reason: 'Cool off', until })).body.data
        .suspended_until as string;
      expect(Date.parse(suspendedUntil)).to.equal(Date.parse(until));
      expect((await call('GET', '/v1/me', token)).status).to.equal(403);
      await eventually(async () => (await call('GET', '/v1/me', token)).status === 200, 'the suspension to end');
      const entries = await call('GET', '/v1/admin/audit-logs?action=user.unsuspended&target_type=user&limit=100', admin.token);
      expect(entries.body.data.find((each: { target_id: string }) => each.target_id === user.id)).to.include({ actor_type: 'system', credential: 'system' });
    });

    it('suspends with no body, an empty body or a reason: the spec’s request has no body', async () => {
      const suspend = async (init: { body?: string; headers?: Record<string, string> }) => {
        const user = await createTestUser();
        const response = await fetch(`${api.baseUrl}/v1/admin/users/${user.id}/suspend`, {
          method: 'POST',
          ...init,
          headers: { ...bearer(admin.token), ...init.headers },
        });
        return { status: response.status, body: await json(response) };
      };
      const bare = await suspend({});
      expect(bare.status, JSON.stringify(bare.body)).to.equal(200);
      expect(bare.body.data).to.include({ suspended: true, suspension_reason: null, suspended_until: null });
      const empty = await suspend({ body: '{}', headers: { 'content-type': 'application/json' } });
      expect(empty.status, JSON.stringify(empty.body)).to.equal(200);
      expect(empty.body.data).to.include({ suspended: true, suspension_reason: null });
      const reasoned = await suspend({ body: JSON.stringify({ reason: 'Spam' }), headers: { 'content-type': 'application/json' } });
      expect(reasoned.status).to.equal(200);
      expect(reasoned.body.data).to.include({ suspended: true, suspension_reason: 'Spam' });
    });

    it('refuses an admin suspending themselves (409), an until in the past (422) and an unknown user (404)', async () => {
      const self = await call('POST', `/v1/admin/users/${admin.id}/suspend`, admin.token, { reason: 'Oops' });
      expect([self.status, self.body.code]).to.deep.equal([409, 'cannot_suspend_self']);
      const user = await createTestUser();
      expect((await call('POST', `/v1/admin/users/${user.id}/suspend`, admin.token, { reason: 'x', until: '2001-01-01T00:00:00Z' })).status).to.equal(422);
      expect((await call('POST', `/v1/admin/users/${crypto.randomUUID()}/suspend`, admin.token, { reason: 'x' })).status).to.equal(404);
    });
  });

  describe('warnings', () => {
    it('creates a warning delivered as a notification and an email, and lists it', async () => {
      const user = await createTestUser();
      const created = await call('POST', '/v1/admin/warnings', admin.token, { user_id: user.id, reason: 'spam', message: 'Please stop posting links.' });
      expect(created.status).to.equal(201);
      expect(created.body.data).to.include({ user_id: user.id, issued_by: admin.id, reason: 'spam', message: 'Please stop posting links.' });
      const listed = await call('GET', `/v1/admin/warnings?user_id=${user.id}`, admin.token);
      expect(listed.body.data.map((each: { id: string }) => each.id)).to.deep.equal([created.body.data.id]);
      const token = (await login(api.baseUrl, user)).accessToken;
      expect((await call('GET', '/v1/notifications', token)).body.data[0]).to.include({ type: 'moderation.warning', body: 'Please stop posting links.' });
      const mailTo = async () => {
        for (const file of await readdir(mailDir)) if ((await readFile(path.join(mailDir, file), 'utf8')).includes(user.email)) return true;
        return false;
      };
      await eventually(mailTo, 'the warning email');
      expect((await call('POST', '/v1/admin/warnings', admin.token, { user_id: crypto.randomUUID(), reason: 'x', message: 'y' })).status).to.equal(404);
    });
  });

  describe('comments, petitions and signatures', () => {
    it('hides a comment from the public lists at once and brings it back on unhide', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [author] = await createTokenUsers(1);
      const target = await comment(petition.id, author!.access_token);
      const listed = async () => (await call('GET', `/v1/petitions/${petition.id}/comments`)).body.data.map((each: { id: string }) => each.id);
      const hidden = await call('POST', `/v1/admin/comments/${target.id}/hide`, admin.token);
      expect([hidden.status, hidden.body.data.is_hidden]).to.deep.equal([200, true]);
      expect(await listed()).to.not.include(target.id);
      const shown = await call('POST', `/v1/admin/comments/${target.id}/unhide`, admin.token);
      expect([shown.status, shown.body.data.is_hidden]).to.deep.equal([200, false]);
      expect(await listed()).to.include(target.id);
    });

    it('moves a petition under review and back through its workflow, then closes it', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      const review = await call('POST', `/v1/admin/petitions/${petition.id}/review`, admin.token);
      expect([review.status, review.body.data.status]).to.deep.equal([200, 'under_review']);
      expect((await call('POST', `/v1/petitions/${petition.id}/signatures`, signer!.access_token, {})).status).to.be.oneOf([404, 409]);
      expect((await call('POST', `/v1/admin/petitions/${petition.id}/review`, admin.token)).status).to.equal(409);
      const restored = await call('POST', `/v1/admin/petitions/${petition.id}/restore`, admin.token);
      expect(restored.body.data.status).to.equal('active');
      expect((await call('POST', `/v1/petitions/${petition.id}/signatures`, signer!.access_token, {})).status).to.equal(201);
      const closed = await call('POST', `/v1/admin/petitions/${petition.id}/close`, admin.fullKey);
      expect([closed.status, closed.body.data.status]).to.deep.equal([200, 'closed']);
      expect((await call('POST', `/v1/admin/petitions/${petition.id}/restore`, admin.token)).status).to.equal(409);
      expect(await auditActions(petition.id)).to.deep.equal(['petition.under_review', 'petition.restored', 'petition.closed_by_admin']);
    });

    it('removes one signature, lowering the count', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer] = await createTokenUsers(1);
      const signed = await call('POST', `/v1/petitions/${petition.id}/signatures`, signer!.access_token, {});
      expect(signed.status).to.equal(201);
      expect((await call('DELETE', `/v1/admin/petitions/${petition.id}/signatures/${signed.body.data.id}`, admin.token)).status).to.equal(204);
      expect((await call('GET', `/v1/petitions/${petition.id}`)).body.data.signature_count).to.equal(0);
      expect((await call('DELETE', `/v1/admin/petitions/${petition.id}/signatures/${signed.body.data.id}`, admin.token)).status).to.equal(404);
      expect(await auditActions(signed.body.data.id)).to.deep.equal(['signature.removed_by_admin']);
    });
  });

  describe('GET /v1/admin/metrics', () => {
    it('answers platform counts', async () => {
      const metrics = (await call('GET', '/v1/admin/metrics', admin.token)).body.data;
      expect(metrics.users.total).to.be.at.least(3);
      expect(metrics.users.admins).to.be.at.least(1);
      expect(metrics.petitions_by_status).to.be.an('object');
      expect(metrics.signatures).to.have.all.keys('today', 'last_7_days', 'total');
      expect(metrics.open_reports).to.be.a('number');
      expect(metrics.webhook_deliveries_failed_24h).to.be.a('number');
      expect(metrics.workflows_running).to.be.an('object');
    });
  });

  describe('GET /v1/admin/audit-logs', () => {
    it('filters by action, target type and since, pages with a cursor, and refuses to change a row', async () => {
      const since = new Date(Date.now() - 1_000).toISOString();
      const users = await Promise.all([createTestUser(), createTestUser()]);
      for (const user of users) await call('POST', `/v1/admin/users/${user.id}/suspend`, admin.fullKey, { reason: 'Audit me' });
      const page = await call('GET', `/v1/admin/audit-logs?action=user.suspended&target_type=user&since=${encodeURIComponent(since)}&limit=1`, admin.token);
      expect(page.body.data).to.have.length(1);
      expect(page.body.data[0]).to.include({ action: 'user.suspended', target_id: users[1]!.id, actor_type: 'api_key', actor_id: admin.id });
      expect(page.body.data[0].credential).to.match(/^api_key:/);
      expect(page.body.data[0].before).to.include({ suspended_at: null });
      const next = await call(
        'GET',
        `/v1/admin/audit-logs?action=user.suspended&since=${encodeURIComponent(since)}&limit=1&cursor=${page.body.pagination.next_cursor}`,
        admin.token,
      );
      expect(next.body.data[0].target_id).to.equal(users[0]!.id);

      const id = page.body.data[0].id as string;
      const attempt = (statement: Parameters<ReturnType<typeof db>['query']>[0]) =>
        db()
          .query(statement)
          .then(
            () => 'changed',
            (error: Error) => error.message,
          );
      expect(await attempt(sql.typeAlias('void')`UPDATE audit_logs SET action = 'user.unsuspended' WHERE id = ${id}`)).to.match(/append-only/);
      expect(await attempt(sql.typeAlias('void')`DELETE FROM audit_logs WHERE id = ${id}`)).to.match(/append-only/);
      expect(await db().oneFirst(sql.type(z.object({ action: z.string() }))`SELECT action FROM audit_logs WHERE id = ${id}`)).to.equal('user.suspended');
    });
  });
});
