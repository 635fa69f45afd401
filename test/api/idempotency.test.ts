// The Idempotency-Key middleware against the real database, mounted on a small app whose one
// route counts how often it really runs.
import { json } from '../support/http.ts';
import { expect } from 'chai';
import Koa from 'koa';
import { createJsonBodyMiddleware } from '../../api/http/body.ts';
import { createRequestContextMiddleware, type RallyState } from '../../api/http/context.ts';
import { createErrorMiddleware } from '../../api/http/error-middleware.ts';
import { createIdempotencyMiddleware } from '../../api/http/idempotency.ts';
import { silentLogger } from '../../platform/logger.ts';
import { listen, type RunningServer } from '../../platform/http-server.ts';
import { testEnvironment } from '../support/environment.ts';
import pg from 'pg';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createPetitionRow, eventually } from '../support/events.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi } from '../support/processes.ts';

describe('Idempotency-Key on POST', function () {
  this.timeout(30_000);
  let server: RunningServer;
  let executions = 0;
  let baseUrl: string;

  before(async () => {
    const app = new Koa<RallyState>();
    app.use(createErrorMiddleware({ publicUrl: 'http://rally.test', log: silentLogger }));
    app.use(createRequestContextMiddleware({ trustProxy: false }));
    app.use(createJsonBodyMiddleware({ limitBytes: 1024 * 1024 }));
    app.use(createIdempotencyMiddleware({ db: testEnvironment().db, ttlMs: 86_400_000, fingerprintKey: 'test fingerprint key' }));
    app.use(async (ctx) => {
      executions += 1;
      await new Promise((resolve) => setTimeout(resolve, 300));
      ctx.status = 201;
      ctx.set('Location', `/things/${executions}`);
      ctx.body = { data: { execution: executions } };
    });
    server = await listen(app, 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${server.port}`;
  });
  after(() => server.close());
  beforeEach(() => {
    executions = 0;
  });

  const post = (key: string, body: unknown) =>
    fetch(`${baseUrl}/things`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });

  it('replays the first answer for a retry of the same request', async () => {
    const first = await post('key-replay', { name: 'a' });
    const second = await post('key-replay', { name: 'a' });
    expect(first.status).to.equal(201);
    expect(second.status).to.equal(201);
    expect(second.headers.get('idempotent-replayed')).to.equal('true');
    expect(second.headers.get('location')).to.equal(first.headers.get('location'));
    expect(await json(second)).to.deep.equal(await json(first));
    expect(executions).to.equal(1);
  });

  it('answers 422 when the key is reused with a different body', async () => {
    await post('key-reused', { name: 'a' });
    const response = await post('key-reused', { name: 'b' });
    expect(response.status).to.equal(422);
    expect((await json(response)).type).to.match(/\/problems\/idempotency-key-reused$/);
    expect(executions).to.equal(1);
  });

  it('never runs two concurrent requests with one key', async () => {
    const responses = await Promise.all([post('key-race', { n: 1 }), post('key-race', { n: 1 }), post('key-race', { n: 1 })]);
    const statuses = responses.map((response) => response.status).sort();
    expect(executions).to.equal(1);
    expect(statuses.filter((status) => status === 201)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(2);
  });

  it('answers 400 to a key that is too long', async () => {
    const response = await post('k'.repeat(256), {});
    expect(response.status).to.equal(400);
    expect(executions).to.equal(0);
  });

  it('runs requests without a key every time', async () => {
    await fetch(`${baseUrl}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await fetch(`${baseUrl}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(executions).to.equal(2);
  });
});

describe('POST /v1/petitions/{id}/signatures with an Idempotency-Key, when the API dies after the commit', function () {
  this.timeout(240_000);

  it('replays the 201 to the retry of a signature whose answer never reached the client', async () => {
    const { db } = testEnvironment();
    let api = await startApi();
    const owner = await createTestUser();
    const signerUser = await createTestUser();
    const signer = await login(api.baseUrl, signerUser);
    const petitionId = await createPetitionRow(owner.id);
    // With a goal of 4 the first signature claims the 25% milestone, in a transaction after the
    // signing statement's commit: held up there by the lock below, the API is killed before answering.
    await db.query(sql.typeAlias('void')`UPDATE petitions SET signature_goal = 4 WHERE id = ${petitionId}`);
    const sign = (baseUrl: string) => fetch(`${baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': `sign-${petitionId}`, ...bearer(signer.accessToken) }, body: '{}',
    });
    const stored = () => db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM signatures WHERE petition_id = ${petitionId}`);

    // The lock is held on a connection of its own, outside the pool the checks below use.
    const locker = new pg.Client({ connectionString: testEnvironment().databaseUrl });
    await locker.connect();
    let signatureId: string;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE petition_milestones IN EXCLUSIVE MODE');
      const lost = sign(api.baseUrl).then(() => 'answered', () => 'connection reset');
      signatureId = await eventually(async () => (await stored()) ?? undefined, 30_000, 'the signature to be committed');
      await api.stop('SIGKILL');
      expect(await lost).to.equal('connection reset');
    } finally {
      await locker.end();
    }

    api = await startApi();
    try {
      const retry = await sign(api.baseUrl);
      expect(retry.status).to.equal(201);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect((await json(retry)).data).to.deep.include({ id: signatureId, petition_id: petitionId, user_id: signerUser.id, signature_count: 1 });
    } finally {
      await api.stop();
    }
  });
});
