// POST /v1/admin/petitions/{id}/invalidate-signatures: a dry run counts, a real run moves the matching signatures out of the count in keyset batches, leaves
// the count exact, emits signature.removed per batch and writes one audit row. One test runs at the scale: 100,000 signatures (seeded with
// generate_series), a quarter invalidated while signing goes on.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

// A few thousand signatures are inserted with SQL; a few more are signed through the API from known addresses
// for the ip_block filter.
const BULK = 3_000;
const CHUNK = 10_000;

describe('POST /v1/admin/petitions/{id}/invalidate-signatures', function () {
  this.timeout(300_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let adminToken: string;
  let creatorToken: string;
  const taskQueue = uniqueTaskQueue('invalidation');
  const db = () => testEnvironment().db;

  before(async () => {
    const env = { RALLY_TASK_QUEUE: taskQueue, RALLY_TRUST_PROXY: 'true' };
    api = await startApi(env);
    worker = await startWorker(env);
    adminToken = (await login(api.baseUrl, await createTestUser({ admin: true }))).accessToken;
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const call = async (method: string, route: string, token: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.baseUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(token), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await json(response) };
  };
  const count = async (petitionId: string) => (await call('GET', `/v1/petitions/${petitionId}`, creatorToken)).body.data.signature_count as number;
  const startInvalidation = async (petitionId: string, body: unknown) => {
    const started = await call('POST', `/v1/admin/petitions/${petitionId}/invalidate-signatures`, adminToken, body);
    expect(started.status, JSON.stringify(started.body)).to.be.oneOf([200, 202]);
    return started.body.data;
  };
  const settle = async (started: { id: string; status: string }, timeoutMs = 90_000) => {
    let invalidation = started;
    const deadline = Date.now() + timeoutMs;
    while (invalidation.status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      invalidation = (await call('GET', `/v1/admin/signature-invalidations/${invalidation.id}`, adminToken)).body.data;
    }
    expect(invalidation.status).to.equal('completed');
    return invalidation as typeof invalidation & Record<string, unknown>;
  };
  const invalidate = async (petitionId: string, body: unknown) => settle(await startInvalidation(petitionId, body));

  /** `count` signers by SQL, every `fraudEvery`th with an address at fraud.test, counted in a shard as signing does. */
  async function bulkSign(petitionId: string, count = BULK, fraudEvery = 3) {
    const tag = crypto.randomUUID().slice(0, 8);
    // In statements of at most CHUNK signers, each well within the pool's statement timeout on a loaded machine.
    for (let first = 1; first <= count; first += CHUNK) {
      const last = Math.min(count, first + CHUNK - 1);
      // The signatures' email_key as signing writes it (rally_email_key of the signer's address).
      await db().query(sql.typeAlias('void')`
        WITH signers AS (
          INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
          SELECT 'bulk', ${tag} || '-' || g, 'Signer.' || g || CASE WHEN g % ${fraudEvery} = 0 THEN '+x@Fraud.test' ELSE
          '@example.test' END, 'Signer ' || g, 'bulk-' || ${tag} || '-' || g
          FROM generate_series(${first}::int, ${last}::int) AS g
          RETURNING id, email
        )
        INSERT INTO signatures (petition_id, user_id, email_key, created_at)
        SELECT ${petitionId}, id, rally_email_key(email), now() - random() * interval '2 days' FROM signers
      `);
    }
    await db().query(sql.typeAlias('void')`
      INSERT INTO signature_counters (petition_id, shard, count) VALUES (${petitionId}, 5, ${count})
      ON CONFLICT ON CONSTRAINT signature_counters_pkey DO UPDATE SET count = signature_counters.count + ${count}
    `);
  }

  it('counts in a dry run, then invalidates exactly the matching signatures, keeping them out of the count', async () => {
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    await bulkSign(petition.id);
    expect(await count(petition.id)).to.equal(BULK);

    const dry = await invalidate(petition.id, { filter: { email_domain: 'fraud.test' }, dry_run: true });
    expect(dry).to.include({ dry_run: true, matched: BULK / 3, signature_count_after: null });
    expect(await count(petition.id)).to.equal(BULK);

    const real = await invalidate(petition.id, { filter: { email_domain: 'FRAUD.test' }, dry_run: false });
    expect(real).to.include({ dry_run: false, matched: BULK / 3, signature_count_after: BULK - BULK / 3 });
    expect(await count(petition.id)).to.equal(BULK - BULK / 3);
    const rows = await db().one(sql.type(z.object({ live: z.number(), kept: z.number() }))`
      SELECT (SELECT count(*) FROM signatures WHERE petition_id = ${petition.id})::int AS live,
        (SELECT count(*) FROM invalidated_signatures WHERE invalidation_id = ${real.id})::int AS kept
    `);
    expect(rows).to.deep.equal({ live: BULK - BULK / 3, kept: BULK / 3 });
    const listed = await call('GET', `/v1/petitions/${petition.id}/signatures?limit=1`, creatorToken);
    expect(listed.body.pagination.total_count ?? BULK - BULK / 3).to.equal(BULK - BULK / 3);

    const batches = await db().anyFirst(sql.type(z.object({ removed: z.number() }))`
      SELECT (data ->> 'count')::int AS removed FROM events WHERE petition_id = ${petition.id} AND type = 'signature.removed'
    `);
    expect(batches.length).to.be.at.least(2);
    expect(batches.reduce((sum, each) => sum + each, 0)).to.equal(BULK / 3);
    const audit = await call('GET', '/v1/admin/audit-logs?action=signatures.invalidated&limit=100', adminToken);
    const entries = audit.body.data.filter((entry: { target_id: string }) => entry.target_id === petition.id);
    expect(entries).to.have.length(1);
    expect(entries[0].after).to.include({ invalidation_id: real.id, invalidated: BULK / 3, signature_count: BULK - BULK / 3 });
  });

  it('invalidates 25,000 of 100,000 signatures in keyset batches while others sign, and every count is exact afterwards', async function () {
    this.timeout(600_000);
    const LARGE = 100_000;
    const FRAUD = LARGE / 4;
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    await bulkSign(petition.id, LARGE, 4);
    const latecomers = await createTokenUsers(5);
    expect(await count(petition.id)).to.equal(LARGE);

    const started = await startInvalidation(petition.id, { filter: { email_domain: 'fraud.test' }, dry_run: false });
    for (const signer of latecomers) expect((await call('POST', `/v1/petitions/${petition.id}/signatures`, signer.access_token, {})).status).to.equal(201);
    const real = await settle(started, 400_000);
    expect(real).to.include({ dry_run: false, matched: FRAUD });
    // The count when the run finished: the latecomers who had signed by then (all, some or none of them).
    expect(real.signature_count_after).to.be.within(LARGE - FRAUD, LARGE - FRAUD + latecomers.length);

    expect(await count(petition.id)).to.equal(LARGE - FRAUD + latecomers.length);
    const rows = await db().one(sql.type(
      z.object({ live: z.number(), kept: z.number(), counted: z.number(), fraud_left: z.number(), removed: z.number(), batches: z.number() }),
    )`
      SELECT (SELECT count(*) FROM signatures WHERE petition_id = ${petition.id})::int AS live,
        (SELECT count(*) FROM invalidated_signatures WHERE invalidation_id = ${real.id})::int AS kept,
        (SELECT sum(count) FROM signature_counters WHERE petition_id = ${petition.id})::int AS counted,
        (SELECT count(*) FROM signatures WHERE petition_id = ${petition.id} AND email_key LIKE '%@fraud.test')::int AS fraud_left,
        (SELECT COALESCE(sum((data ->> 'count')::int), 0) FROM events WHERE petition_id = ${petition.id} AND type = 'signature.removed')::int AS removed,
        (SELECT count(*) FROM events WHERE petition_id = ${petition.id} AND type = 'signature.removed')::int AS batches
    `);
    const { batches, ...counts } = rows;
    expect(counts).to.deep.equal({
      live: LARGE - FRAUD + latecomers.length,
      kept: FRAUD,
      counted: LARGE - FRAUD + latecomers.length,
      fraud_left: 0,
      removed: FRAUD,
    });
    // Batches of at most 1,000 signatures each: no long transaction, so no long lock on the petition's rows.
    expect(batches).to.be.at.least(FRAUD / 1_000);
  });

  it('matches an ip_block by the /24 the signers signed from, and wider blocks', async () => {
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    const signers = await createTokenUsers(4);
    const addresses = ['203.0.113.7', '203.0.113.8', '203.0.113.200', '198.51.100.1'];
    for (const [index, signer] of signers.entries()) {
      const signed = await call('POST', `/v1/petitions/${petition.id}/signatures`, signer.access_token, {}, { 'X-Forwarded-For': addresses[index]! });
      expect(signed.status).to.equal(201);
    }
    expect((await invalidate(petition.id, { filter: { ip_block: '198.51.0.0/16' }, dry_run: true })).matched).to.equal(1);
    const real = await invalidate(petition.id, { filter: { ip_block: '203.0.113.0/24' }, dry_run: false });
    expect(real).to.include({ matched: 3, signature_count_after: 1 });
    expect(await count(petition.id)).to.equal(1);
  });

  it('answers 422 without a filter or with a malformed ip_block, and 404 for an unknown petition', async () => {
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    const route = `/v1/admin/petitions/${petition.id}/invalidate-signatures`;
    expect((await call('POST', route, adminToken, { filter: {}, dry_run: true })).status).to.equal(422);
    const malformed = await call('POST', route, adminToken, { filter: { ip_block: '300.1.2.3/24' }, dry_run: true });
    expect([malformed.status, malformed.body.errors?.[0]?.code]).to.deep.equal([422, 'invalid_ip_block']);
    expect((await call('POST', route, adminToken, { filter: { ip_block: '10.0.0.0/8' }, dry_run: true })).status).to.equal(422);
    expect(
      (
        await call('POST', `/v1/admin/petitions/${crypto.randomUUID()}/invalidate-signatures`, adminToken, {
          filter: { email_domain: 'x.test' },
          dry_run: true,
        })
      ).status,
    ).to.equal(404);
  });
});
