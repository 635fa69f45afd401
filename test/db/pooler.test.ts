// Rally behind PgBouncer in transaction mode, as docs/operations/replicas.md, the runbook, compose.yaml and `npm run cluster` run it
// (scripts/lib/pgbouncer.ts), with one direct DATABASE_LISTEN_URL per process for LISTEN. Two APIs and a worker use the pooler; what NOTIFY keeps current in
// every API (token revocation, user cache eviction, live counts) must still reach the other one, which pointing the listener at the pooler too would lose.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import WebSocket from 'ws';
import { startPgBouncer, throughPgBouncer, PGBOUNCER_POOL_MODE, type PgBouncer } from '../../scripts/lib/pgbouncer.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { freePort, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const post = (api: RunningApi, route: string, token: string | undefined, body: unknown) =>
  fetch(`${api.baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
    body: JSON.stringify(body),
  });

describe('Rally behind PgBouncer in transaction mode', function () {
  this.timeout(180_000);
  let directory: string;
  let bouncer: PgBouncer;
  let first: RunningApi;
  let second: RunningApi;
  let worker: RallyProcess;

  before(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'rally-pgbouncer-'));
    await chmod(directory, 0o755); // run as root, PgBouncer drops to the postgres user, which reads its files here
    const direct = testEnvironment().databaseUrl;
    bouncer = await startPgBouncer({ upstreamUrl: direct, dataDir: path.join(directory, 'pgbouncer'), port: await freePort(), poolSize: 5, log: () => {} });
    const env = {
      DATABASE_URL: throughPgBouncer(direct, bouncer.port),
      DATABASE_LISTEN_URL: direct,
      RALLY_DB_PREPARED_STATEMENTS: 'false',
      RALLY_TASK_QUEUE: uniqueTaskQueue('pooler'),
    };
    [first, second, worker] = await Promise.all([startApi(env), startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([first?.stop(), second?.stop(), worker?.stop()]);
    await bouncer?.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it('runs in the pool mode the documents name', () => {
    expect(PGBOUNCER_POOL_MODE).to.equal('transaction');
  });

  it('refuses on the other API an access token revoked on one (refresh-token replay)', async () => {
    const user = await createTestUser();
    const rt0 = (await login(first.baseUrl, user)).refreshToken;
    const rotated = await post(first, '/v1/auth/refresh', undefined, { refresh_token: rt0 });
    const { data: pair } = await json(rotated);
    expect((await fetch(`${second.baseUrl}/v1/users/me`, { headers: bearer(pair.access_token) })).status).to.equal(200);
    expect((await post(first, '/v1/auth/refresh', undefined, { refresh_token: rt0 })).status).to.equal(401);
    await eventually(
      async () => ((await fetch(`${second.baseUrl}/v1/users/me`, { headers: bearer(pair.access_token) })).status === 401 ? true : undefined),
      10_000,
      'a 401 on the other API',
    );
  });

  it("evicts a suspended user from the other API's cache", async () => {
    const admin = (await login(first.baseUrl, await createTestUser({ admin: true }))).accessToken;
    const user = await createTestUser();
    const token = (await login(first.baseUrl, user)).accessToken;
    expect((await fetch(`${second.baseUrl}/v1/users/me`, { headers: bearer(token) })).status).to.equal(200); // now cached there
    expect((await post(first, `/v1/admin/users/${user.id}/suspend`, admin, { reason: 'pooler test' })).status).to.equal(200);
    await eventually(
      async () => {
        const response = await fetch(`${second.baseUrl}/v1/users/me`, { headers: bearer(token) });
        return response.status === 403 && (await json(response)).code === 'account_suspended' ? true : undefined;
      },
      10_000,
      'a 403 account_suspended on the other API',
    );
  });

  it('streams live signature counts signed on one API to a client of the other', async () => {
    const owner = (await login(first.baseUrl, await createTestUser())).accessToken;
    const petition = await publishedPetition(first.baseUrl, owner);
    const socket = new WebSocket(`${second.baseUrl.replace('http', 'ws')}/v1/realtime`);
    const counts: number[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; signature_count?: number };
      if (message.type === 'signature.created') counts.push(message.signature_count!);
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'subscribe', petition_id: petition.id }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const signer of await createTokenUsers(2)) {
      expect((await post(first, `/v1/petitions/${petition.id}/signatures`, signer.access_token, {})).status).to.equal(201);
    }
    await eventually(async () => (counts.includes(2) ? true : undefined), 10_000, 'a live count of 2 on the other API');
    socket.close();
  });
});
