// A rolling restart with no failed request (issue 29): two API processes behind the round-robin proxy
// `npm run cluster` puts on PORT (scripts/lib/round-robin-proxy.ts) are restarted one at a time, as a
// deployment does, while clients keep signing and reading through the proxy over keep-alive
// connections. SIGTERM turns the API's readiness to 503 first and it keeps serving for
// RALLY_API_SHUTDOWN_DELAY, answering `Connection: close` meanwhile; the proxy, probing readiness,
// sends new connections to the other API. No request may fail: no 5xx, no refused or reset connection.
import { expect } from 'chai';
import { startRoundRobinProxy, type RoundRobinProxy } from '../scripts/lib/round-robin-proxy.ts';
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

describe('rolling restart of both APIs behind the round-robin proxy', function () {
  this.timeout(300_000);
  const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('rolling'), RALLY_API_SHUTDOWN_DELAY: SHUTDOWN_DELAY };
  let ports: number[];
  let apis: RunningApi[];
  let worker: RallyProcess;
  let proxy: RoundRobinProxy;
  let proxyUrl: string;

  before(async () => {
    ports = [await freePort(), await freePort()];
    apis = await Promise.all(ports.map((port) => startApi({ ...env, PORT: String(port) })));
    worker = await startWorker(env);
    const proxyPort = await freePort();
    proxy = await startRoundRobinProxy('127.0.0.1', proxyPort, ports);
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
  });
  after(async () => {
    await proxy?.close();
    await Promise.all([...(apis ?? []), worker].map((process) => process?.stop()));
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
        await eventually(async () => (outcomes.length > before + 20 ? true : undefined), 60_000, 'requests served after the restart');
      }
    } finally {
      running = false;
      await Promise.all(clients);
    }

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
