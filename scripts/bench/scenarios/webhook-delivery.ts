// Events to webhook deliveries, end to end: outbox rows committed through recordEvent, the worker's
// dispatcher, one delivery workflow each, a signed POST to a local receiver. Reported against
// (a) a plain undici loop posting the same payloads to the same receiver and (b) the bare rate of
// this Temporal server for a workflow with one no-op activity. Then the latency at half the
// sustained rate, and whether a 10,000-event burst to one slow endpoint delays another endpoint.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { createDatabasePool } from '../../../db/pool.ts';
import type { BenchEnvironment, ResultRow, Scenario } from '../scenario.ts';
import {
  emitEvents, measureBareTemporal, percentile, removeOwner, seedOwner, startRallyWorker, startReceiver, stopRallyWorker, waitForEmptyOutbox, type Receiver,
} from '../webhook-kit.ts';

const NAME = 'webhook-delivery';
const ENDPOINTS = 4;
const BURST = 10_000;
const SLOW_MS = 200;
const MIN_RATIO = 0.5;

type Figures = { rate: number; p50: number; p99: number; count: number; seconds: number };

function row(target: string, figures: Figures, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    scenario: NAME, target, requestsPerSecond: figures.rate, p50Ms: figures.p50, p99Ms: figures.p99,
    errors: 0, timeouts: 0, non2xx: 0, requests: figures.count, durationSec: figures.seconds,
    ratio: null, goal: null, verdict: null, ...extra,
  };
}

/** Waits until every committed event arrived (× copies), or the time is up; then the figures. */
async function collect(receiver: Receiver, committed: Map<string, number>, expected: number, arrivedCount: () => number, limitMs: number): Promise<Figures> {
  const start = Math.min(...committed.values());
  const deadline = performance.now() + limitMs;
  while (arrivedCount() < expected && performance.now() < deadline) await sleep(50);
  const latencies = [...committed].flatMap(([id, at]) => (receiver.arrivals.has(id) ? [receiver.arrivals.get(id)! - at] : [])).sort((a, b) => a - b);
  const lastArrival = Math.max(...[...committed.keys()].map((id) => receiver.arrivals.get(id) ?? 0));
  const elapsed = Math.max((lastArrival - start) / 1000, 0.001);
  return { rate: arrivedCount() / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: arrivedCount(), seconds: elapsed };
}

async function plainUndiciLoop(url: string, body: string, seconds: number, inFlight: number): Promise<Figures> {
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < deadline) {
      const at = performance.now();
      const response = await request(url, { dispatcher: agent, method: 'POST', body: body.replace('ID', randomUUID()), headers: { 'content-type': 'application/json' } });
      await response.body.dump();
      latencies.push(performance.now() - at);
    }
  }));
  await agent.close();
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length, seconds: elapsed };
}

export const scenario: Scenario = {
  name: NAME,
  goal: `webhook deliveries/s ≥ ${MIN_RATIO} × a bare one-activity Temporal workflow; p99 event→receipt < 1 s at half that rate; < 2 s for another endpoint during a ${BURST.toLocaleString('en-US')}-event burst to a slow one`,
  async run(env: BenchEnvironment): Promise<ResultRow[]> {
    const seconds = env.load.durationSec;
    const db = await createDatabasePool(env.databaseUrl, { maximumPoolSize: 8 });
    const receiver = await startReceiver({ '/slow': SLOW_MS });
    const worker = await startRallyWorker(env, `bench-webhooks-${randomUUID().slice(0, 8)}`);
    const owners: string[] = [];
    try {
      await waitForEmptyOutbox(db, env.log);
      // The references first, while nothing else runs on this Temporal server.
      env.log(`${NAME}: plain undici loop and bare Temporal, ${seconds} s each`);
      const undici = await plainUndiciLoop(receiver.url('/plain'), JSON.stringify({ id: 'ID', type: 'signature.created', created_at: new Date().toISOString(), triggered_by: { type: 'system', id: null }, data: { n: 1 } }), seconds, 10 * ENDPOINTS);
      const bare = await measureBareTemporal(env, seconds * 50 * ENDPOINTS);

      const busy = await seedOwner(db, Array.from({ length: ENDPOINTS }, (_, index) => receiver.url(`/fast-${index}`)));
      owners.push(busy.userId);
      const arrivedFast = () => Array.from({ length: ENDPOINTS }, (_, index) => receiver.arrivedOn(`/fast-${index}`)).reduce((a, b) => a + b, 0);
      await collect(receiver, await emitEvents(db, busy.petitionId, 50), 50 * ENDPOINTS, arrivedFast, 30_000); // warm-up

      env.log(`${NAME}: burst of ${seconds * 50} events to ${ENDPOINTS} endpoints`);
      const before = arrivedFast();
      const committed = await emitEvents(db, busy.petitionId, seconds * 50);
      const sustained = await collect(receiver, committed, before + committed.size * ENDPOINTS, () => arrivedFast() - before, 120_000);

      env.log(`${NAME}: paced at half that rate for ${seconds} s`);
      const paced = new Map<string, number>();
      // Events per 100 ms tick, kept as a fraction so that low rates are paced right too.
      const perTick = sustained.rate / ENDPOINTS / 2 / 10;
      const pacedBefore = arrivedFast();
      let credit = 0;
      for (let tick = 0; tick < seconds * 10; tick += 1) {
        credit += perTick;
        const due = Math.floor(credit);
        credit -= due;
        if (due > 0) for (const [id, at] of await emitEvents(db, busy.petitionId, due, due)) paced.set(id, at);
        await sleep(100);
      }
      const half = await collect(receiver, paced, paced.size * ENDPOINTS, () => arrivedFast() - pacedBefore, 60_000);

      env.log(`${NAME}: ${BURST} events to one endpoint answering in ${SLOW_MS} ms, while another gets events`);
      const slow = await seedOwner(db, [receiver.url('/slow')]);
      const other = await seedOwner(db, [receiver.url('/other')]);
      owners.push(slow.userId, other.userId);
      await emitEvents(db, slow.petitionId, BURST, 500);
      const during = new Map<string, number>();
      for (let tick = 0; tick < seconds * 10; tick += 1) {
        for (const [id, at] of await emitEvents(db, other.petitionId, 2, 2)) during.set(id, at);
        await sleep(100);
      }
      const isolated = await collect(receiver, during, during.size, () => receiver.arrivedOn('/other'), 60_000);

      const ratio = sustained.rate / bare.rate;
      return [
        row(`pipeline: ${ENDPOINTS} endpoints, deliveries/s, event commit→receipt`, sustained, { ratio, goal: `≥ ${MIN_RATIO.toFixed(2)} × bare`, verdict: ratio >= MIN_RATIO ? 'PASS' : 'MISS' }),
        row('bare Temporal: 1 no-op activity, workflows/s', { rate: bare.rate, p50: 0, p99: 0, count: bare.count, seconds: bare.seconds }),
        row('plain undici loop, same payloads (ratio = pipeline ÷ this)', undici, { ratio: sustained.rate / undici.rate }),
        row('pipeline at half the sustained rate', half, { goal: 'p99 < 1000 ms', verdict: half.p99 < 1000 ? 'PASS' : 'MISS' }),
        row(`another endpoint during a ${BURST}-event slow burst`, isolated, { goal: 'p99 < 2000 ms', verdict: isolated.p99 < 2000 && isolated.count === during.size ? 'PASS' : 'MISS' }),
      ];
    } finally {
      for (const userId of owners) await removeOwner(db, userId);
      await stopRallyWorker(worker);
      await receiver.close();
      await db.end();
    }
  },
};
