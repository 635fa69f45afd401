// A rolling restart with no failed request (issues 29, 48): two APIs behind HAProxy as `npm run cluster` runs it (scripts/lib/haproxy.ts) are restarted one at
// a time while clients keep signing and reading over keep-alive connections. SIGTERM turns readiness to 503 first while the API keeps serving for
// RALLY_API_SHUTDOWN_DELAY, so HAProxy moves requests to the other API: no 5xx, no refused or reset connection.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { serverStates, startHaproxy, type Haproxy } from '../scripts/lib/haproxy.ts';
import { testEnvironment } from './support/environment.ts';
import { sql } from '../db/sql.ts';
import { z } from 'zod';
import { eventually } from './support/events.ts';
import { createTestUser, createTokenUsers, login } from './support/identity.ts';
import { publishedPetition } from './support/petitions.ts';
import { freePort, startApi, startWorker, type RallyProcess, type RunningApi } from './support/processes.ts';
import { uniqueTaskQueue } from './support/workflows.ts';

const CLIENTS = 4;
const SHUTDOWN_DELAY = '2s';

type Outcome = { kind: 'read' | 'sign'; status?: number; error?: string };

describe('rolling restart of both APIs behind HAProxy', function () {
  this.timeout(300_000);
  const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('rolling'), RALLY_API_SHUTDOWN_DELAY: SHUTDOWN_DELAY, RALLY_TRUST_PROXY: '1' };
  let ports: number[];
  let apis: RunningApi[];
  let worker: RallyProcess;
  let dataDir: string;
  let haproxy: Haproxy;
  let proxyUrl: string;

  before(async () => {
    ports = [await freePort(), await freePort()];
    apis = await Promise.all(ports.map((port) => startApi({ ...env, PORT: String(port) })));
    worker = await startWorker(env);
    const proxyPort = await freePort();
    dataDir = await mkdtemp(path.join(tmpdir(), 'rally-haproxy-'));
    haproxy = await startHaproxy({
      dataDir,
      bind: `127.0.0.1:${proxyPort}`,
      apiAddresses: ports.map((port) => `127.0.0.1:${port}`),
      statsBind: `127.0.0.1:${await freePort()}`,
      log: () => {},
    });
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
  });
  after(async () => {
    await haproxy?.stop();
    await Promise.all([...(apis ?? []), worker].map((process) => process?.stop()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const ready = (api: RunningApi) =>
    eventually(async () => ((await fetch(`${api.baseUrl}/health/ready`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 'readiness');

  it('answers every request while each API is stopped and started again in turn', async () => {
    await Promise.all(apis.map(ready));
    const owner = await createTestUser();
    const token = (await login(proxyUrl, owner)).accessToken;
    const petition = await publishedPetition(proxyUrl, token);
    const signers = await createTokenUsers(600);
    const outcomes: Outcome[] = [];
    let running = true;
    // What HAProxy's stats page said of each API while they restarted: each must have been taken out.
    const seen = new Set<string>();
    const watching = (async () => {
      while (running) {
        for (const [server, status] of Object.entries(await serverStates(haproxy.statsUrl))) seen.add(`${server} ${status.split(' ')[0]}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const call = async (kind: Outcome['kind'], request: () => Promise<Response>) => {
      try {
        const response = await request();
        await response.arrayBuffer();
        outcomes.push({ kind, status: response.status });
      } catch (error) {
        outcomes.push({ kind, error: String((error as Error).cause ?? error) });
      }
    };
    const clients = Array.from({ length: CLIENTS }, async (_, index) => {
      while (running) {
        const signer = index % 2 === 0 ? signers.pop() : undefined;
        if (signer) {
          await call('sign', () =>
            fetch(`${proxyUrl}/v1/petitions/${petition.id}/signatures`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${signer.access_token}` },
              body: '{}',
            }),
          );
        } else {
          await call('read', () => fetch(`${proxyUrl}/v1/petitions/${petition.id}`));
        }
      }
    });

    try {
      for (const [index, port] of ports.entries()) {
        const before = outcomes.length;
        await apis[index]!.stop('SIGTERM');
        apis[index] = await startApi({ ...env, PORT: String(port) });
        await ready(apis[index]!);
        const server = `api-${index + 1}`;
        await eventually(async () => ((await serverStates(haproxy.statsUrl))[server] === 'UP' ? true : undefined), 30_000, `HAProxy puts ${server} back`);
        await eventually(async () => (outcomes.length > before + 20 ? true : undefined), 60_000, 'requests served after the restart');
      }
    } finally {
      running = false;
      await Promise.all([...clients, watching]);
    }
    expect([...seen].filter((state) => state.endsWith(' DOWN')).sort(), 'APIs HAProxy took out while they restarted').to.deep.equal([
      'api-1 DOWN',
      'api-2 DOWN',
    ]);

    const failed = outcomes.filter((outcome) => outcome.error !== undefined || outcome.status! >= 500);
    expect(failed, 'requests that failed during the rolling restart').to.deep.equal([]);
    const signed = outcomes.filter((outcome) => outcome.kind === 'sign');
    expect(
      signed.filter((outcome) => outcome.status !== 201),
      'signatures not acknowledged',
    ).to.deep.equal([]);
    expect(outcomes.filter((outcome) => outcome.kind === 'read' && outcome.status === 200).length, 'reads answered').to.be.above(20);
    const stored = await testEnvironment().db.oneFirst(
      sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM signatures WHERE petition_id = ${petition.id}`,
    );
    expect(stored, 'signatures stored').to.equal(signed.length);
  });
});
