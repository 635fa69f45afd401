// Webhooks while the Temporal server is down (issue 45): a worker on a Temporal dev server of this scenario's own, a burst of events to a healthy endpoint
// before the outage and another during it (the server stopped for 30 s), plus events to a failing endpoint whose retries must resume once it is back. First
// attempts need no Temporal: the rate during the outage is compared with the rate before it, and nothing may be lost.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import { createDatabasePool } from '../../../db/pool.ts';
import { resolveTemporalCli } from '../../lib/temporal-cli.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../lib/temporal-dev-server.ts';
import { loadTemporalSettings } from '../../lib/temporal-settings.ts';
import { freePort } from '../../lib/free-port.ts';
import { check, judge, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { emitEvents, removeOwner, seedOwner, startRallyWorker, startReceiver, stopRallyWorker, waitForEmptyOutbox, type Receiver } from '../webhook-kit.ts';

const NAME = 'webhook-outage';
const BURST = 10_000;
const SHORT_BURST = 2_000;
const FULL_SECONDS = 15;
const OUTAGE_MS = 30_000;
const MIN_DURING_TO_BEFORE = 0.8;
const FAILING_EVENTS = 5;
const ATTEMPTS = 6; // the first and five retries
const RETRY_INITIAL = '500ms';
const DRAIN_LIMIT_MS = 120_000;

/** Deliveries/s of a burst: from its first event written to its last arrival. */
async function burstRate(db: DatabasePool, receiver: Receiver, petitionId: string, count: number): Promise<{ rate: number; arrived: number }> {
  const started = performance.now();
  const ids = [...(await emitEvents(db, petitionId, count, 500)).keys()];
  const deadline = performance.now() + DRAIN_LIMIT_MS;
  while (ids.some((id) => !receiver.arrivals.has(id)) && performance.now() < deadline) await sleep(100);
  const arrived = ids.filter((id) => receiver.arrivals.has(id));
  const last = Math.max(started, ...arrived.map((id) => receiver.arrivals.get(id)!));
  return { rate: arrived.length / Math.max((last - started) / 1000, 0.001), arrived: arrived.length };
}

async function startOwnTemporal(env: BenchEnvironment, dbFile: string, port: number): Promise<TemporalDevServer> {
  const settings = loadTemporalSettings();
  const server = await startTemporalDevServer({
    cliPath: await resolveTemporalCli(env.log),
    dbFile,
    port,
    uiPort: await freePort(),
    namespace: 'default',
    searchAttributes: settings.searchAttributes,
    headless: true,
    quiet: true,
    log: env.log,
  });
  env.meter.register('temporal', server.pid);
  void server.exited.then(() => env.meter.unregister(server.pid));
  return server;
}

export const scenario: Scenario = {
  name: NAME,
  goal:
    `Temporal stopped for ${OUTAGE_MS / 1000} s during the pipeline: first attempts go on at ≥ ${MIN_DURING_TO_BEFORE} × the rate before, ` +
    "the failing endpoint's retries resume, nothing is lost",
  async run(env: BenchEnvironment): Promise<ResultRow[]> {
    const burst = env.load.durationSec >= FULL_SECONDS ? BURST : SHORT_BURST;
    const db = await createDatabasePool(env.databaseUrl, { maximumPoolSize: 8 });
    const directory = await mkdtemp(path.join(tmpdir(), 'rally-bench-outage-'));
    const port = await freePort();
    let temporal = await startOwnTemporal(env, path.join(directory, 'temporal.sqlite'), port);
    const receiver = await startReceiver({}, ['/outage-failing']);
    const worker = await startRallyWorker(
      {
        ...env,
        serviceEnv: { ...env.serviceEnv, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: 'default', RALLY_WEBHOOK_RETRY_INITIAL: RETRY_INITIAL },
      },
      `bench-outage-${randomUUID().slice(0, 8)}`,
    );
    const owners: string[] = [];
    try {
      await waitForEmptyOutbox(db, env.log);
      const healthy = await seedOwner(db, [receiver.url('/outage-healthy')]);
      const failing = await seedOwner(db, [receiver.url('/outage-failing')]);
      owners.push(healthy.userId, failing.userId);
      await burstRate(db, receiver, healthy.petitionId, 200); // warm-up
      const before = await burstRate(db, receiver, healthy.petitionId, burst);
      env.log(`${NAME}: before the outage ${Math.round(before.rate)}/s; stopping the Temporal server for ${OUTAGE_MS / 1000} s`);

      const outageStarted = performance.now();
      await temporal.stop();
      await emitEvents(db, failing.petitionId, FAILING_EVENTS, FAILING_EVENTS);
      const during = await env.meter.measure(`${burst} events with the Temporal server stopped`, () => burstRate(db, receiver, healthy.petitionId, burst));
      env.log(`${NAME}: during the outage ${Math.round(during.value.rate)}/s`);
      await sleep(Math.max(0, OUTAGE_MS - (performance.now() - outageStarted)));
      const failedDuring = receiver.arrivedOn('/outage-failing');
      temporal = await startOwnTemporal(env, path.join(directory, 'temporal.sqlite'), port);

      const retryDeadline = performance.now() + 60_000;
      while (receiver.arrivedOn('/outage-failing') < FAILING_EVENTS * ATTEMPTS && performance.now() < retryDeadline) await sleep(250);
      const failingAttempts = receiver.arrivedOn('/outage-failing');
      const ratio = before.rate > 0 ? during.value.rate / before.rate : 0;
      return [
        {
          scenario: NAME,
          target: `Temporal stopped ${OUTAGE_MS / 1000} s during the pipeline: ${burst} events to a healthy endpoint, deliveries/s; ratio = during ÷ before`,
          requestsPerSecond: during.value.rate,
          p50Ms: 0,
          p99Ms: 0,
          errors: 0,
          timeouts: 0,
          non2xx: 0,
          requests: during.value.arrived,
          durationSec: during.value.arrived / Math.max(during.value.rate, 0.001),
          ratio,
          goal: `≥ ${MIN_DURING_TO_BEFORE} × before; retries resume; none lost`,
          cost: during.cost,
          ...judge([
            check('during ÷ before', ratio, `≥ ${MIN_DURING_TO_BEFORE}`, ratio >= MIN_DURING_TO_BEFORE),
            check(
              'events delivered before and during',
              before.arrived + during.value.arrived,
              `= ${2 * burst}`,
              before.arrived + during.value.arrived === 2 * burst,
            ),
            check('failing first attempts during the outage', failedDuring, `= ${FAILING_EVENTS}`, failedDuring === FAILING_EVENTS),
            check('attempts per failing event', failingAttempts / FAILING_EVENTS, `= ${ATTEMPTS}`, failingAttempts === FAILING_EVENTS * ATTEMPTS),
          ]),
        },
      ];
    } finally {
      for (const userId of owners) await removeOwner(db, userId);
      await stopRallyWorker(worker);
      await temporal.stop();
      await receiver.close();
      await db.end();
      await rm(directory, { recursive: true, force: true });
    }
  },
};
