// POST /v1/reports and what reports do on their own: the moderation workflow hides a target once RALLY_REPORT_AUTOHIDE_THRESHOLD distinct users reported it (3
// here), even when they report at once. Reporters who should count are established (verified, old enough) and report from networks of their own
// (X-Forwarded-For, trusted here); test/api/report-abuse.test.ts tests who counts.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createEstablishedUsers, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const THRESHOLD = 3;

describe('reports', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;
  const taskQueue = uniqueTaskQueue('reports');
  const env = { RALLY_TASK_QUEUE: taskQueue, RALLY_REPORT_AUTOHIDE_THRESHOLD: String(THRESHOLD), RALLY_REPORT_LIMIT_PER_HOUR: '5', RALLY_TRUST_PROXY: '1' };

  before(async () => {
    api = await startApi(env);
    worker = await startWorker(env);
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const post = (path: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...headers },
      body: JSON.stringify(body),
    });
  // Each report from a /24 of its own, so no report here looks like brigading.
  let network = 0;
  const report = (token: string, body: Record<string, unknown>) =>
    post('/v1/reports', token, { reason: 'spam', ...body }, { 'X-Forwarded-For': `10.${Math.floor(++network / 256) % 256}.${network % 256}.7` });
  const commentOn = async (petitionId: string, token: string) =>
    (await json(await post(`/v1/petitions/${petitionId}/comments`, token, { body: 'Buy cheap watches here' }))).data;
  const db = () => testEnvironment().db;
  const eventually = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  describe('POST /v1/reports', () => {
    it('answers 201 with the open report', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [reporter] = await createTokenUsers(1);
      const response = await report(reporter!.access_token, {
        target_type: 'petition',
        target_id: petition.id,
        reason: 'misinformation',
        description: 'Made-up numbers',
      });
      expect(response.status).to.equal(201);
      const { data } = await json(response);
      expect(data).to.include({ target_type: 'petition', target_id: petition.id, reason: 'misinformation', description: 'Made-up numbers', status: 'open' });
      expect(data.id).to.match(/^[0-9a-f-]{36}$/);
      expect(Date.parse(data.created_at)).to.be.a('number').and.not.NaN;
    });

    it('answers 401 without a bearer token', async () => {
      expect((await post('/v1/reports', undefined, { target_type: 'user', target_id: crypto.randomUUID(), reason: 'spam' })).status).to.equal(401);
    });

    it('answers 404 for an unknown target of each type, and for a draft the reporter cannot see', async () => {
      const [reporter] = await createTokenUsers(1);
      for (const targetType of ['petition', 'comment', 'user']) {
        const response = await report(reporter!.access_token, { target_type: targetType, target_id: crypto.randomUUID() });
        expect(response.status, targetType).to.equal(404);
      }
      const draft = await createPetition(api.baseUrl, creatorToken);
      expect((await report(reporter!.access_token, { target_type: 'petition', target_id: draft.id })).status).to.equal(404);
    });

    it('answers 422 for an unknown reason or a description over 1000 characters', async () => {
      const [reporter] = await createTokenUsers(1);
      const target = { target_type: 'user', target_id: reporter!.id };
      expect((await report(reporter!.access_token, { ...target, reason: 'boring' })).status).to.equal(422);
      expect((await report(reporter!.access_token, { ...target, description: 'x'.repeat(1001) })).status).to.equal(422);
    });

    it('answers 409 when the same reporter reports the same target again while the report is open', async () => {
      const [reporter, target] = await createTokenUsers(2);
      expect((await report(reporter!.access_token, { target_type: 'user', target_id: target!.id })).status).to.equal(201);
      const again = await report(reporter!.access_token, { target_type: 'user', target_id: target!.id, reason: 'harassment' });
      expect(again.status).to.equal(409);
      expect((await json(again)).code).to.equal('already_reported');
    });

    it('answers 429 once a user filed RALLY_REPORT_LIMIT_PER_HOUR reports', async () => {
      const [reporter] = await createTokenUsers(1);
      const targets = await createTokenUsers(6);
      const statuses = [];
      for (const target of targets) statuses.push((await report(reporter!.access_token, { target_type: 'user', target_id: target.id })).status);
      expect(statuses).to.deep.equal([201, 201, 201, 201, 201, 429]);
    });
  });

  describe('auto-hide after the threshold of distinct reporters', () => {
    it('hides a comment reported by the threshold of users at once, and not before', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [author] = await createTokenUsers(1);
      const reporters = await createEstablishedUsers(THRESHOLD);
      const comment = await commentOn(petition.id, author!.access_token);
      const isHidden = () => db().oneFirst(sql.type(z.object({ is_hidden: z.boolean() }))`SELECT is_hidden FROM comments WHERE id = ${comment.id}`);

      expect((await report(reporters[0]!.access_token, { target_type: 'comment', target_id: comment.id })).status).to.equal(201);
      expect((await report(reporters[1]!.access_token, { target_type: 'comment', target_id: comment.id })).status).to.equal(201);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await isHidden()).to.equal(false);

      expect((await report(reporters[2]!.access_token, { target_type: 'comment', target_id: comment.id })).status).to.equal(201);
      await eventually(isHidden, 'the comment to be hidden');
      const list = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/comments`));
      expect(list.data.map((each: { id: string }) => each.id)).to.not.include(comment.id);
    });

    it('puts a petition under review when its reports arrive concurrently: no new signatures, out of listings, signatures kept', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [signer, later] = await createTokenUsers(2);
      const reporters = await createEstablishedUsers(THRESHOLD + 2);
      expect((await post(`/v1/petitions/${petition.id}/signatures`, signer!.access_token, {})).status).to.equal(201);
      const statuses = await Promise.all(
        reporters.map((reporter) => report(reporter.access_token, { target_type: 'petition', target_id: petition.id }).then((response) => response.status)),
      );
      expect(statuses).to.deep.equal(reporters.map(() => 201));

      const status = () => db().oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM petitions WHERE id = ${petition.id}`);
      await eventually(async () => (await status()) === 'under_review', 'the petition to be under review');
      expect((await post(`/v1/petitions/${petition.id}/signatures`, later!.access_token, {})).status).to.be.oneOf([404, 409]);
      const listed = await json(await fetch(`${api.baseUrl}/v1/petitions?limit=100`));
      expect(listed.data.map((each: { id: string }) => each.id)).to.not.include(petition.id);
      const creatorView = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, { headers: bearer(creatorToken) }));
      expect(creatorView.data).to.include({ status: 'under_review', signature_count: 1 });
      const audited = () =>
        db().anyFirst(sql.type(z.object({ action: z.string() }))`SELECT action FROM audit_logs WHERE target_id = ${petition.id} ORDER BY created_at`);
      // The hold comes first and its record of who hid it and why right after, in the same activity.
      await eventually(async () => (await audited()).includes('moderation.auto_hidden'), 'the auto-hide to be recorded');
      expect(await audited()).to.include.members(['petition.under_review', 'moderation.auto_hidden']);
    });

    it('flags a reported user for review, without suspending them', async () => {
      const [target] = await createTokenUsers(1);
      const reporters = await createEstablishedUsers(THRESHOLD);
      await Promise.all(reporters.map((reporter) => report(reporter.access_token, { target_type: 'user', target_id: target!.id, reason: 'harassment' })));
      const flagged = () =>
        db().oneFirst(sql.type(z.object({ flagged: z.boolean() }))`SELECT flagged_for_review_at IS NOT NULL AS flagged FROM users WHERE id = ${target!.id}`);
      await eventually(flagged, 'the user to be flagged');
      expect((await fetch(`${api.baseUrl}/v1/me`, { headers: bearer(target!.access_token) })).status).to.equal(200);
    });
  });
});
