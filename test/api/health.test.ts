// The probes of issue 17 and issue 16: /health (spec shape), /health/live, /health/ready; an outage of PostgreSQL or Temporal turns /health to 503 degraded
// (taken away through a TCP proxy the test cuts), and SIGTERM turns readiness to 503 while the API still answers. Meanwhile a route that needs PostgreSQL
// answers 503 with Retry-After: the outage is not the client's doing nor a bug (500).
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { eventually } from '../support/events.ts';
import { testEnvironment } from '../support/environment.ts';
import { startApi, type RunningApi } from '../support/processes.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

async function probe(api: RunningApi, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api.baseUrl}${path}`);
  return { status: response.status, body: await json(response) };
}

describe('health probes', function () {
  this.timeout(120_000);
  let database: TcpProxy;
  let temporal: TcpProxy;
  let api: RunningApi;

  before(async () => {
    const { databaseUrl, temporal: server } = testEnvironment();
    const db = new URL(databaseUrl);
    const [temporalHost, temporalPort] = server.address.split(':') as [string, string];
    database = await startTcpProxy(db.hostname, Number(db.port || 5432));
    temporal = await startTcpProxy(temporalHost, Number(temporalPort));
    db.host = `127.0.0.1:${database.port}`;
    api = await startApi({ DATABASE_URL: db.toString(), TEMPORAL_ADDRESS: `127.0.0.1:${temporal.port}` });
  });
  after(async () => {
    await api?.stop();
    await database?.close();
    await temporal?.close();
  });

  describe('GET /health', () => {
    it('answers 200 ok with both dependencies reachable', async () => {
      const { status, body } = await probe(api, '/health');
      expect(status).to.equal(200);
      expect(body).to.deep.include({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
      expect(Number.isNaN(Date.parse(body.timestamp))).to.equal(false);
    });

    it('answers 503 degraded while PostgreSQL is unreachable, and ok again once it is back', async () => {
      await database.cut();
      try {
        const down = await eventually(
          async () => {
            const answer = await probe(api, '/health');
            return answer.status === 503 ? answer : undefined;
          },
          10_000,
          '/health 503',
        );
        expect(down.body).to.deep.include({ status: 'degraded', checks: { database: 'unreachable', temporal: 'ok' } });
        const live = await probe(api, '/health/live');
        expect(live.status).to.equal(200);
      } finally {
        await database.restore();
      }
      await eventually(async () => ((await probe(api, '/health')).status === 200 ? true : undefined), 20_000, '/health 200 again');
    });

    it('answers 503 degraded while Temporal is unreachable, on /health/ready too', async () => {
      await temporal.cut();
      try {
        const down = await eventually(
          async () => {
            const answer = await probe(api, '/health');
            return answer.status === 503 ? answer : undefined;
          },
          10_000,
          '/health 503',
        );
        expect(down.body).to.deep.include({ status: 'degraded', checks: { database: 'ok', temporal: 'unreachable' } });
        const ready = await probe(api, '/health/ready');
        expect(ready.status).to.equal(503);
        expect(ready.body.status).to.equal('degraded');
      } finally {
        await temporal.restore();
      }
      await eventually(async () => ((await probe(api, '/health/ready')).status === 200 ? true : undefined), 30_000, '/health/ready 200 again');
    });
  });

  describe('a route that reads PostgreSQL (GET /v1/petitions/{id})', () => {
    it('answers 503 with Retry-After while PostgreSQL is unreachable, never 500', async () => {
      await database.cut();
      try {
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const response = await fetch(`${api.baseUrl}/v1/petitions/${randomUUID()}`);
          const body = await json(response);
          expect(response.status, JSON.stringify(body)).to.equal(503);
          expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect(Number(response.headers.get('retry-after'))).to.be.at.least(1);
          expect(body).to.include({ status: 503, code: 'database_unavailable' });
        }
      } finally {
        await database.restore();
      }
      await eventually(async () => ((await probe(api, '/health')).status === 200 ? true : undefined), 20_000, '/health 200 again');
      const unknown = await fetch(`${api.baseUrl}/v1/petitions/${randomUUID()}`);
      expect(unknown.status).to.equal(404);
    });
  });

  describe('GET /health/live and /health/ready', () => {
    it('answers 200 ok on both while the API serves', async () => {
      const live = await probe(api, '/health/live');
      expect(live.status).to.equal(200);
      expect(live.body.status).to.equal('ok');
      const ready = await probe(api, '/health/ready');
      expect(ready.status).to.equal(200);
      expect(ready.body).to.deep.include({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
    });

    it('answers 503 shutting_down on readiness after SIGTERM while liveness and other routes still answer', async () => {
      const stopping = await startApi({ RALLY_API_SHUTDOWN_DELAY: '3s' });
      const exited = new Promise((resolve) => stopping.child.once('exit', resolve));
      stopping.child.kill('SIGTERM');
      const ready = await eventually(
        async () => {
          const answer = await probe(stopping, '/health/ready');
          return answer.status === 503 ? answer : undefined;
        },
        10_000,
        'readiness 503',
      );
      expect(ready.body.status).to.equal('shutting_down');
      expect((await probe(stopping, '/health/live')).status).to.equal(200);
      expect((await fetch(`${stopping.baseUrl}/v1`)).status).to.equal(200);
      await exited;
    });
  });
});
