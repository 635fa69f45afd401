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
import { connect, createServer, type AddressInfo } from 'node:net';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createPetitionRow } from '../support/events.ts';
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
    const answers = await Promise.all(
      responses.map(async (response) => ({ status: response.status, replayed: response.headers.get('idempotent-replayed'), body: await json(response) })),
    );
    expect(executions).to.equal(1);
    const original = answers.filter((answer) => answer.status === 201 && answer.replayed !== 'true');
    expect(original).to.have.length(1);
    // The others arrived while it ran (409), or after it finished, on a loaded machine (its answer, replayed).
    for (const answer of answers.filter((candidate) => candidate !== original[0])) {
      if (answer.status === 409) expect(answer.body.type).to.match(/\/problems\/idempotency-key-in-use$/);
      else expect(answer).to.deep.equal({ status: 201, replayed: 'true', body: original[0]!.body });
    }
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

/**
 * A TCP proxy in front of `target` that passes requests on and never an answer: when the first byte
 * of one comes back, it calls `onAnswer` and resets the client's connection.
 */
async function answerLosingProxy(target: URL, onAnswer: () => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream);
    upstream.once('data', () => {
      onAnswer();
      upstream.destroy();
      client.resetAndDestroy();
    });
    upstream.on('error', () => client.resetAndDestroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('POST /v1/petitions/{id}/signatures with an Idempotency-Key, when the API dies after the commit', function () {
  this.timeout(240_000);

  it('replays the 201 to the retry of a signature whose answer never reached the client', async () => {
    const { db } = testEnvironment();
    let api = await startApi();
    const owner = await createTestUser();
    const signerUser = await createTestUser();
    const signer = await login(api.baseUrl, signerUser);
    const petitionId = await createPetitionRow(owner.id);
    const sign = (baseUrl: string) =>
      fetch(`${baseUrl}/v1/petitions/${petitionId}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `sign-${petitionId}`, ...bearer(signer.accessToken) },
        body: '{}',
      });

    // The request reaches the API through the proxy; as the answer starts to come back, whatever the
    // API did before answering is done, and the API is killed and the client's connection reset.
    let killed: Promise<void> | undefined;
    const proxy = await answerLosingProxy(new URL(api.baseUrl), () => {
      killed ??= api.stop('SIGKILL');
    });
    try {
      expect(
        await sign(proxy.url).then(
          () => 'answered',
          () => 'connection reset',
        ),
      ).to.equal('connection reset');
      expect(killed, 'the API killed as it answered').to.not.equal(undefined);
      await killed;
    } finally {
      await proxy.close();
    }
    const signatureId = await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM signatures WHERE petition_id = ${petitionId}`);
    expect(signatureId, 'the signature committed').to.be.a('string');

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
