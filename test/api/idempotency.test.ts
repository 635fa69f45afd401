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
