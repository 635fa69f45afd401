// Events to webhook deliveries, end to end: outbox rows, the worker's dispatcher, delivery-batch
// workflows, signed POSTs to a local receiver that notes each event's arrival.
// (a) The goal of issue 16: signature.created deliveries to one healthy endpoint while the API signs
//     at full speed (every request a new user with a real token): ≥ 2,000 deliveries/s sustained and
//     p99 event → receipt < 1 s, every event delivered. Latency is measured from the event's own
//     created_at to its arrival, on the wall clock of this one host.
// (b) A burst written straight into the outbox to one endpoint: what the pipeline alone sustains.
// (c) The bare rate of this Temporal server for a workflow with one no-op activity: the ceiling of
//     the former design (one workflow per delivery), for the ratio.
// (d) Whether a 10,000-event burst to one slow endpoint delays another endpoint (p99 < 2 s).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { createDatabasePool } from '../../../db/pool.ts';
import { sql } from '../../../db/sql.ts';
import { freePort, startExtraApi } from '../environment.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { createSignerPool, measureSigning, startIdentityProvider } from '../signers.ts';
import {
  emitEvents,
  measureBareTemporal,
  percentile,
  removeOwner,
  seedOwner,
  startRallyWorker,
  startReceiver,
  stopRallyWorker,
  waitForEmptyOutbox,
  type Receiver,
} from '../webhook-kit.ts';

const NAME = 'webhook-delivery';
const BURST = 10_000;
const SLOW_MS = 200;
const MIN_RATE = 2_000;
const MAX_P99_MS = 1_000;
const DRAIN_LIMIT_MS = 120_000;

type Figures = { rate: number; p50: number; p99: number; count: number; seconds: number };

function row(target: string, figures: Figures, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    scenario: NAME,
    target,
    requestsPerSecond: figures.rate,
    p50Ms: figures.p50,
    p99Ms: figures.p99,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    requests: figures.count,
    durationSec: figures.seconds,
    ratio: null,
    goal: null,
    verdict: null,
    ...extra,
  };
}

/** Waits until every one of `eventIds` arrived, or the time is up; then rate (first event → last arrival) and latencies. */
async function collect(receiver: Receiver, eventIds: readonly string[], firstEventAt: number, limitMs = DRAIN_LIMIT_MS): Promise<Figures> {
  const deadline = performance.now() + limitMs;
  const arrived = () => eventIds.filter((id) => receiver.arrivals.has(id));
  while (arrived().length < eventIds.length && performance.now() < deadline) await sleep(100);
  const got = arrived();
  const latencies = got.map((id) => receiver.sinceEvent.get(id)!).sort((a, b) => a - b);
  const lastArrival = Math.max(...got.map((id) => receiver.arrivals.get(id)!));
  const seconds = Math.max((lastArrival - firstEventAt) / 1000, 0.001);
  return { rate: got.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: got.length, seconds };
}

/** The signature.created events of a petition and when (performance clock) the first of them happened. */
async function signingEvents(db: Awaited<ReturnType<typeof createDatabasePool>>, petitionId: string) {
  const rows = await db.any(sql.type(z.object({ id: z.string(), age_ms: z.number() }))`
    SELECT id, (extract(epoch FROM clock_timestamp() - occurred_at) * 1000)::float8 AS age_ms
    FROM events WHERE petition_id = ${petitionId} AND type = 'signature.created'`);
  const oldest = Math.max(0, ...rows.map((event) => event.age_ms));
  return { ids: rows.map((event) => event.id), firstAt: performance.now() - oldest };
}

/** (a): signing at full speed through a second API process while the worker delivers each signature.created. */
async function whileSigning(env: BenchEnvironment, db: Awaited<ReturnType<typeof createDatabasePool>>, receiver: Receiver, owners: string[]) {
  const target = await seedOwner(db, [receiver.url('/signing')]);
  owners.push(target.userId);
  const idpPort = String(await freePort());
  const api = await startExtraApi(env, { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', RALLY_SIGN_LIMIT_PER_HOUR: '1000000000' }, 'api-sign');
  try {
    const idp = await startIdentityProvider(api.serviceEnv, env.log);
    try {
      const signing = await measureSigning(
        env,
        api,
        createSignerPool(api.serviceEnv, env.log),
        'API sign (with a webhook subscriber)',
        () => target.petitionId,
      );
      const events = await signingEvents(db, target.petitionId);
      env.log(`${NAME}: ${events.ids.length} signature.created events; waiting for their deliveries`);
      return { signing, delivered: await collect(receiver, events.ids, events.firstAt), expected: events.ids.length };
    } finally {
      await idp.stop();
    }
  } finally {
    await api.stop();
  }
}

export const scenario: Scenario = {
  name: NAME,
  goal:
    `signature.created deliveries to one healthy endpoint while signing at full speed: ≥ ` +
    `${MIN_RATE.toLocaleString('en-US')}/s sustained, p99 event→receipt < ${MAX_P99_MS} ms, ` +
    `all delivered; < 2 s for another endpoint during a ${BURST.toLocaleString('en-US')}-event burst to a slow one`,
  async run(env: BenchEnvironment): Promise<ResultRow[]> {
    const seconds = env.load.durationSec;
    const db = await createDatabasePool(env.databaseUrl, { maximumPoolSize: 8 });
    const receiver = await startReceiver({ '/slow': SLOW_MS });
    const worker = await startRallyWorker(env, `bench-webhooks-${randomUUID().slice(0, 8)}`);
    const owners: string[] = [];
    try {
      await waitForEmptyOutbox(db, env.log);
      env.log(`${NAME}: bare Temporal reference, ${seconds * 50} one-activity workflows`);
      const bare = await measureBareTemporal(env, seconds * 50);

      const busy = await seedOwner(db, [receiver.url('/burst')]);
      owners.push(busy.userId);
      await collect(receiver, [...(await emitEvents(db, busy.petitionId, 200)).keys()], performance.now(), 30_000); // warm-up
      env.log(`${NAME}: burst of ${BURST} events into the outbox for one endpoint`);
      const burstStart = performance.now();
      const burst = await collect(receiver, [...(await emitEvents(db, busy.petitionId, BURST, 500)).keys()], burstStart);

      const { signing, delivered, expected } = await whileSigning(env, db, receiver, owners);

      env.log(`${NAME}: ${BURST} events to one endpoint answering in ${SLOW_MS} ms, while another gets events`);
      const slow = await seedOwner(db, [receiver.url('/slow')]);
      const other = await seedOwner(db, [receiver.url('/other')]);
      owners.push(slow.userId, other.userId);
      await emitEvents(db, slow.petitionId, BURST, 500);
      const during: string[] = [];
      const duringStart = performance.now();
      for (let tick = 0; tick < seconds * 10; tick += 1) {
        during.push(...(await emitEvents(db, other.petitionId, 2, 2)).keys());
        await sleep(100);
      }
      const isolated = await collect(receiver, during, duringStart, 60_000);

      const keptUp = delivered.count === expected && delivered.rate >= MIN_RATE && delivered.p99 < MAX_P99_MS;
      return [
        row(`while signing at full speed: signature.created deliveries/s, event→receipt (${delivered.count} of ${expected})`, delivered, {
          ratio: delivered.rate / MIN_RATE,
          goal: `≥ ${MIN_RATE.toLocaleString('en-US')}/s, p99 < ${MAX_P99_MS} ms, all`,
          verdict: verdictFor(keptUp, signing),
        }),
        row('  the signing meanwhile (API, a new user each)', {
          rate: signing.requestsPerSecond,
          p50: signing.p50Ms,
          p99: signing.p99Ms,
          count: signing.requests,
          seconds: signing.durationSec,
        }),
        row(`pipeline alone: ${BURST} events to 1 endpoint, deliveries/s (ratio = ÷ bare Temporal)`, burst, { ratio: burst.rate / bare.rate }),
        row('bare Temporal: 1 no-op activity, workflows/s (one workflow per delivery, the former design)', {
          rate: bare.rate,
          p50: 0,
          p99: 0,
          count: bare.count,
          seconds: bare.seconds,
        }),
        row(`another endpoint during a ${BURST}-event slow burst`, isolated, {
          goal: 'p99 < 2000 ms',
          verdict: isolated.p99 < 2000 && isolated.count === during.length ? 'PASS' : 'MISS',
        }),
      ];
    } finally {
      for (const userId of owners) await removeOwner(db, userId);
      await stopRallyWorker(worker);
      await receiver.close();
      await db.end();
    }
  },
};
