// Issue 24, finding 1: no one person can hide a petition. Auto-hide counts distinct established people (verified, older than RALLY_REPORT_MIN_ACCOUNT_AGE), not
// organization keys, not people whose earlier report a reviewer closed, and not a network block that brigades the target. Each report comes from the address in
// X-Forwarded-For (trusted here), so a test chooses its reporters' blocks.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createEstablishedUsers, createTestUser, createTokenUsers, establishUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const THRESHOLD = 5;
const BRIGADE_THRESHOLD = 5;

describe('who counts toward auto-hide', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;
  let admin: { id: string; token: string };
  const env = {
    RALLY_TASK_QUEUE: uniqueTaskQueue('report-abuse'),
    RALLY_TRUST_PROXY: '1',
    RALLY_REPORT_AUTOHIDE_THRESHOLD: String(THRESHOLD),
    RALLY_REPORT_BRIGADE_THRESHOLD: String(BRIGADE_THRESHOLD),
    RALLY_REPORT_MIN_ACCOUNT_AGE: '1h',
    RALLY_REPORT_LIMIT_PER_HOUR: '100',
  };

  before(async () => {
    api = await startApi(env);
    worker = await startWorker(env);
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
    const adminUser = await createTestUser({ admin: true });
    admin = { id: adminUser.id, token: (await login(api.baseUrl, adminUser)).accessToken };
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const db = () => testEnvironment().db;
  const call = async (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(token), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await json(response) };
  };
  // Every report from its own /24 unless a test names an address.
  let network = 0;
  const ownAddress = () => `10.${Math.floor(++network / 256) % 256}.${network % 256}.7`;
  const report = (token: string, targetType: string, targetId: string, address = ownAddress()) =>
    call('POST', '/v1/reports', token, { target_type: targetType, target_id: targetId, reason: 'spam' }, { 'X-Forwarded-For': address });
  const reportAll = async (users: { access_token: string }[], targetType: string, targetId: string, address?: string) => {
    for (const user of users) expect((await report(user.access_token, targetType, targetId, address)).status).to.equal(201);
  };
  const petitionStatus = (id: string) => db().oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM petitions WHERE id = ${id}`);
  const commentHidden = (id: string) => db().oneFirst(sql.type(z.object({ is_hidden: z.boolean() }))`SELECT is_hidden FROM comments WHERE id = ${id}`);
  const eventually = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  // Long enough for the moderation workflow to count the reports just filed.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000));
  const autoHiddenCounts = (targetId: string) =>
    db().anyFirst(sql.type(z.object({ reporters: z.number() }))`
    SELECT (after ->> 'reporters')::int AS reporters FROM audit_logs WHERE action = 'moderation.auto_hidden' AND target_id = ${targetId}`);

  describe('POST /v1/reports', () => {
    it('refuses a report made with an organization key', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const person = await createTestUser();
      const personToken = (await login(api.baseUrl, person)).accessToken;
      const org = await call('POST', '/v1/organizations', personToken, { name: `Rivals ${randomUUID().slice(0, 8)}` });
      const key = await call('POST', `/v1/organizations/${org.body.data.id}/api-keys`, personToken, { name: 'reporting', scopes: ['read_write'] });
      const refused = await report(key.body.data.key, 'petition', petition.id);
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('forbidden');
      expect(refused.body.detail).to.match(/made by people/);
      const stored = await db().oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM reports WHERE target_id = ${petition.id}`);
      expect(stored).to.equal(0);
    });
  });

  describe('auto-hide', () => {
    it('hides a petition once THRESHOLD established people report it', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const reporters = await createEstablishedUsers(THRESHOLD);
      // Two of them share a network block: below RALLY_REPORT_BRIGADE_THRESHOLD, they count as usual.
      await reportAll(reporters.slice(0, 2), 'petition', petition.id, '192.0.2.10');
      await reportAll(reporters.slice(2, THRESHOLD - 1), 'petition', petition.id);
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      await reportAll(reporters.slice(THRESHOLD - 1), 'petition', petition.id);
      await eventually(async () => (await petitionStatus(petition.id)) === 'under_review', 'the petition to be under review');
      await eventually(async () => (await autoHiddenCounts(petition.id)).length > 0, 'the auto-hide to be recorded');
      expect(await autoHiddenCounts(petition.id)).to.deep.equal([THRESHOLD]);
    });

    it('does not count reports from accounts younger than RALLY_REPORT_MIN_ACCOUNT_AGE', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const fresh = await createTokenUsers(THRESHOLD);
      // Verified, but made just now: younger than the hour this file sets.
      await establishUsers(
        fresh.map((user) => user.id),
        0,
      );
      await reportAll(fresh, 'petition', petition.id);
      const established = await createEstablishedUsers(THRESHOLD);
      await reportAll(established.slice(0, THRESHOLD - 1), 'petition', petition.id);
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      const open = await call('GET', '/v1/admin/reports?status=open&target_type=petition&limit=100', admin.token);
      const queued = open.body.data
        .filter((each: { target_id: string }) => each.target_id === petition.id)
        .map((each: { reporter_id: string }) => each.reporter_id);
      expect(queued).to.include.members(fresh.map((user) => user.id));
      await reportAll(established.slice(THRESHOLD - 1), 'petition', petition.id);
      await eventually(async () => (await petitionStatus(petition.id)) === 'under_review', 'the petition to be under review');
      await eventually(async () => (await autoHiddenCounts(petition.id)).length > 0, 'the auto-hide to be recorded');
      expect(await autoHiddenCounts(petition.id)).to.deep.equal([THRESHOLD]);
    });

    it('does not count unverified accounts', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const unverified = await createEstablishedUsers(THRESHOLD);
      await db().query(
        sql.typeAlias('void')`UPDATE users SET email_verified = false WHERE id = ANY(${sql.array(
          unverified.map((user) => user.id),
          'uuid',
        )})`,
      );
      await reportAll(unverified, 'petition', petition.id);
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      expect(await autoHiddenCounts(petition.id)).to.deep.equal([]);
    });

    it('is not hidden again by the people who reported it before after a restore', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const first = await createEstablishedUsers(THRESHOLD);
      await reportAll(first, 'petition', petition.id);
      await eventually(async () => (await petitionStatus(petition.id)) === 'under_review', 'the petition to be under review');
      expect((await call('POST', `/v1/admin/petitions/${petition.id}/restore`, admin.token)).status).to.equal(200);
      const stillOpen = await db().oneFirst(
        sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM reports WHERE target_id = ${petition.id} AND status = 'open'`,
      );
      expect(stillOpen).to.equal(0);

      await reportAll(first, 'petition', petition.id);
      const fresh = await createEstablishedUsers(THRESHOLD);
      await reportAll(fresh.slice(0, THRESHOLD - 1), 'petition', petition.id);
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      await reportAll(fresh.slice(THRESHOLD - 1), 'petition', petition.id);
      await eventually(async () => (await petitionStatus(petition.id)) === 'under_review', 'the petition to be under review again');
    });

    it('alerts administrators when reports come from one network block and stops counting them', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const brigade = await createEstablishedUsers(BRIGADE_THRESHOLD);
      await reportAll(brigade, 'petition', petition.id, '198.51.100.23');
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      const alert = await brigadingNotification(petition.id);
      expect(alert.data).to.include({ target_type: 'petition', target_id: petition.id, reports: BRIGADE_THRESHOLD });
      const events = await db().anyFirst(sql.type(z.object({ petition_id: z.string().nullable() }))`
        SELECT petition_id FROM events WHERE type = 'report.brigading_suspected' AND data ->> 'target_id' = ${petition.id}`);
      expect(events).to.deep.equal([null]);
      const audited = await db().anyFirst(sql.type(z.object({ actor_type: z.string() }))`
        SELECT actor_type FROM audit_logs WHERE action = 'report.brigading_suspected' AND target_id = ${petition.id}`);
      expect(audited).to.deep.equal(['system']);
      // A sixth from the block raises no second alert; people elsewhere still need the whole threshold.
      await reportAll(await createEstablishedUsers(1), 'petition', petition.id, '198.51.100.99');
      const others = await createEstablishedUsers(THRESHOLD);
      await reportAll(others.slice(0, THRESHOLD - 1), 'petition', petition.id);
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      expect(await brigadingNotifications(petition.id)).to.have.length(1);
      await reportAll(others.slice(THRESHOLD - 1), 'petition', petition.id);
      await eventually(async () => (await petitionStatus(petition.id)) === 'under_review', 'the petition to be under review');
    });
  });

  type Notification = { type: string; data: Record<string, unknown> };
  const brigadingNotifications = async (targetId: string): Promise<Notification[]> => {
    const list = await call('GET', '/v1/notifications?limit=100', admin.token);
    return list.body.data.filter((each: Notification) => each.type === 'report.brigading_suspected' && each.data.target_id === targetId);
  };
  const brigadingNotification = async (targetId: string): Promise<Notification> => {
    let found: Notification[] = [];
    await eventually(async () => (found = await brigadingNotifications(targetId)).length > 0, 'the brigading notification');
    return found[0]!;
  };

  describe('decisions on auto-hidden targets', () => {
    const commentOn = async (petitionId: string) => {
      const [author] = await createTokenUsers(1);
      return (await call('POST', `/v1/petitions/${petitionId}/comments`, author!.access_token, { body: 'A perfectly fine opinion' })).body.data as {
        id: string;
      };
    };

    it('restores an auto-hidden comment when its reports are dismissed', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const comment = await commentOn(petition.id);
      await reportAll(await createEstablishedUsers(THRESHOLD), 'comment', comment.id);
      await eventually(() => commentHidden(comment.id), 'the comment to be hidden');
      const filed = await db().oneFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM reports WHERE target_id = ${comment.id} LIMIT 1`);
      const dismissed = await call('POST', `/v1/admin/reports/${filed}/action`, admin.token, { action: 'dismiss' });
      expect(dismissed.status).to.equal(200);
      expect(dismissed.body.data).to.include({ status: 'dismissed', action: 'dismiss' });
      expect(await commentHidden(comment.id)).to.equal(false);
      const unhidden = await db().anyFirst(sql.type(z.object({ actor_id: z.string().nullable() }))`
        SELECT actor_id FROM audit_logs WHERE action = 'comment.unhidden' AND target_id = ${comment.id}`);
      expect(unhidden).to.deep.equal([admin.id]);
    });

    it('restores a hidden target through restore on an already dismissed report', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const comment = await commentOn(petition.id);
      const [reporter] = await createEstablishedUsers(1);
      const filed = (await report(reporter!.access_token, 'comment', comment.id)).body.data as { id: string };
      expect((await call('POST', `/v1/admin/comments/${comment.id}/hide`, admin.token)).status).to.equal(200);
      // A reviewer's own hide stands when the report is dismissed…
      expect((await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.token, { action: 'dismiss' })).status).to.equal(200);
      expect(await commentHidden(comment.id)).to.equal(true);
      // …and `restore` on that closed report brings the comment back instead of answering 409.
      const restored = await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.token, { action: 'restore' });
      expect(restored.status).to.equal(200);
      expect(await commentHidden(comment.id)).to.equal(false);
      const again = await call('POST', `/v1/admin/reports/${filed.id}/action`, admin.token, { action: 'restore', note: 'again' });
      expect([again.status, again.body.code]).to.deep.equal([409, 'report_not_open']);
    });
  });

  describe('one person with many accounts and organization keys', () => {
    it('cannot hide a petition: it stays active, the administrators are alerted and the audit log shows every report', async () => {
      const since = new Date(Date.now() - 1_000).toISOString();
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const person = await createTestUser();
      const personToken = (await login(api.baseUrl, person)).accessToken;
      const keys: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        const org = await call('POST', '/v1/organizations', personToken, { name: `Front ${index} ${randomUUID().slice(0, 8)}` });
        keys.push((await call('POST', `/v1/organizations/${org.body.data.id}/api-keys`, personToken, { name: 'front', scopes: ['read_write'] })).body.data.key);
      }
      const accounts = await createTokenUsers(10);
      // All from one machine: the loopback address, one /24.
      const statuses = [];
      for (const account of accounts)
        statuses.push((await call('POST', '/v1/reports', account.access_token, { target_type: 'petition', target_id: petition.id, reason: 'spam' })).status);
      for (const key of keys)
        statuses.push((await call('POST', '/v1/reports', key, { target_type: 'petition', target_id: petition.id, reason: 'spam' })).status);
      expect(statuses).to.deep.equal([...accounts.map(() => 201), ...keys.map(() => 403)]);

      await brigadingNotification(petition.id);
      await settle();
      expect(await petitionStatus(petition.id)).to.equal('active');
      const listed = await call('GET', '/v1/petitions?limit=100', creatorToken);
      expect(listed.body.data.map((each: { id: string }) => each.id)).to.include(petition.id);

      const audit = await call('GET', `/v1/admin/audit-logs?action=report.created&since=${encodeURIComponent(since)}&limit=100`, admin.token);
      const aboutPetition = audit.body.data.filter((entry: { after: { target_id: string } }) => entry.after.target_id === petition.id);
      expect(aboutPetition.map((entry: { actor_id: string }) => entry.actor_id)).to.have.members(accounts.map((account) => account.id));
    });
  });
});
