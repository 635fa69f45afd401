// Events to webhook deliveries, end to end: outbox rows, the worker's dispatcher sending first attempts itself, signed POSTs to a local receiver noting each
// arrival: (a) the pipeline alone against a bare loop, (b) 10 endpoints with a slow and a failing one, (c) the worker's memory after (≤ 200 MB). Deliveries
// while signing at full speed, and signing with a subscriber, are rows of the signing scenario; a Temporal outage is webhook-outage.ts.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabasePool } from '../../../db/pool.ts';
import { bareUndiciLoop } from '../bare-delivery.ts';
import { ROUNDS } from '../interleave.ts';
import { percentile } from '../load.ts';
import { addCosts, type WindowCost } from '../meter.ts';
import { check, judge, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { emitEvents, removeOwner, seedOwner, startRallyWorker, startReceiver, stopRallyWorker, waitForEmptyOutbox, type Receiver } from '../webhook-kit.ts';

const NAME = 'webhook-delivery';
const BURST = 10_000;
/** Short mode (BENCH_SECONDS < 15) is for trying rows: a smaller burst, so a round stays short too. */
const SHORT_BURST = 2_000;
const FULL_SECONDS = 15;
const MIN_RATE = 3_000;
const MIN_TO_BARE = 0.5;
const MAX_P99_MS = 500;
const SLOW_MS = 2_000;
const HEALTHY = 8;
const ATTEMPTS = 6; // the first and five retries
const RETRY_INITIAL = '200ms';
const BARE_IN_FLIGHT = 200; // RALLY_WEBHOOK_ENDPOINT_CONCURRENCY's default: an endpoint's delivery window
const MAX_WORKER_RSS_MB = 200;
const DRAIN_LIMIT_MS = 120_000;

type Figures = { rate: number; p50: number; p99: number; count: number; seconds: number; cost?: WindowCost };

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
    ...(figures.cost ? { cost: figures.cost } : {}),
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
  const lastArrival = Math.max(firstEventAt, ...got.map((id) => receiver.arrivals.get(id)!));
  const seconds = Math.max((lastArrival - firstEventAt) / 1000, 0.001);
  return { rate: got.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: got.length, seconds };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;

async function rssMb(pid: number | undefined): Promise<number | null> {
  const status = pid === undefined ? '' : await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kilobytes === undefined ? null : Number(kilobytes) / 1024;
}

// (a) 10,000 events written straight into the outbox for one endpoint, against a bare `undici` loop sending the
// same signed requests to the same receiver, in interleaved rounds; goal ≥ 3,000 deliveries/s and ≥ 0.50 of the
// bare loop (issue 45). (b) 10 endpoints, one answering in 2 s and one failing (HTTP 500), each with its own petition,
// events for all of them: the healthy eight keep p99 event → receipt < 500 ms, and the failing one's events each
// arrive 6 times (the first attempt and its five backed-off retries; the bench's worker starts retrying after
// RETRY_INITIAL, doubling).
export const scenario: Scenario = {
  name: NAME,
  goal:
    `${BURST.toLocaleString('en-US')} outbox events to one endpoint: ≥ ${MIN_RATE.toLocaleString('en-US')} deliveries/s and ` +
    `≥ ${MIN_TO_BARE} × a bare undici loop; 10 endpoints, one slow (${SLOW_MS / 1000} s) and one failing: the healthy keep ` +
    `p99 < ${MAX_P99_MS} ms and the failing one gets its 5 retries; worker RSS ≤ ${MAX_WORKER_RSS_MB} MB`,
  async run(env: BenchEnvironment): Promise<ResultRow[]> {
    const burst = env.load.durationSec >= FULL_SECONDS ? BURST : SHORT_BURST;
    const db = await createDatabasePool(env.databaseUrl, { maximumPoolSize: 8 });
    const receiver = await startReceiver({ '/slow': SLOW_MS }, ['/failing']);
    const worker = await startRallyWorker(
      { ...env, serviceEnv: { ...env.serviceEnv, RALLY_WEBHOOK_RETRY_INITIAL: RETRY_INITIAL } },
      `bench-webhooks-${randomUUID().slice(0, 8)}`,
    );
    const owners: string[] = [];
    try {
      await waitForEmptyOutbox(db, env.log);
      const busy = await seedOwner(db, [receiver.url('/burst')]);
      owners.push(busy.userId);
      await collect(receiver, [...(await emitEvents(db, busy.petitionId, 200)).keys()], performance.now(), 30_000); // warm-up
      await bareUndiciLoop(receiver.url('/bare'), 1_000, BARE_IN_FLIGHT); // warm-up
      const pipeline: Figures[] = [];
      const bare: Figures[] = [];
      for (let round = 1; round <= ROUNDS; round += 1) {
        env.log(`${NAME}: burst of ${burst} events into the outbox for one endpoint (round ${round}/${ROUNDS})`);
        // From the first event written to the last arrival: the dispatcher starts while the burst is being written.
        const { value, cost } = await env.meter.measure(`pipeline ${burst} events (round ${round})`, async () => {
          const burstStart = performance.now();
          return collect(receiver, [...(await emitEvents(db, busy.petitionId, burst, 500)).keys()], burstStart);
        });
        pipeline.push({ ...value, cost });
        const loop = await env.meter.measure(`bare undici loop (round ${round})`, () => bareUndiciLoop(receiver.url('/bare'), burst, BARE_IN_FLIGHT));
        bare.push({ rate: loop.value.rate, p50: 0, p99: 0, count: loop.value.count, seconds: loop.value.seconds, cost: loop.cost });
        env.log(`${NAME}: pipeline ${Math.round(value.rate)}/s (${value.count} of ${burst}), bare undici ${Math.round(loop.value.rate)}/s`);
      }
      const pipe: Figures = {
        ...pipeline[0]!,
        rate: median(pipeline.map((one) => one.rate)),
        p99: median(pipeline.map((one) => one.p99)),
        count: pipeline.reduce((sum, one) => sum + one.count, 0),
        cost: addCosts(...pipeline.map((one) => one.cost)),
      };
      const bareRate = median(bare.map((one) => one.rate));
      const toBare = bareRate > 0 ? pipe.rate / bareRate : 0;
      const allArrived = pipeline.every((one) => one.count === burst);

      env.log(`${NAME}: 10 endpoints (one slow, one failing), events for each`);
      const healthy = await Promise.all(Array.from({ length: HEALTHY }, (_, index) => seedOwner(db, [receiver.url(`/healthy-${index}`)])));
      const slow = await seedOwner(db, [receiver.url('/slow')]);
      const failing = await seedOwner(db, [receiver.url('/failing')]);
      owners.push(...healthy.map((one) => one.userId), slow.userId, failing.userId);
      const failingEvents = [...(await emitEvents(db, failing.petitionId, 5, 5)).keys()];
      const healthyIds: string[] = [];
      const tenStart = performance.now();
      const ticks = Math.max(5, env.load.durationSec) * 5;
      const ten = await env.meter.measure('10 endpoints, one slow and one failing', async () => {
        for (let tick = 0; tick < ticks; tick += 1) {
          await emitEvents(db, slow.petitionId, 2, 2);
          for (const owner of healthy) healthyIds.push(...(await emitEvents(db, owner.petitionId, 2, 2)).keys());
          await sleep(200);
        }
        return collect(receiver, healthyIds, tenStart, 60_000);
      });
      // 200 ms doubling five times: the last retry comes about 6 s after the first attempt.
      const retryDeadline = performance.now() + 30_000;
      while (receiver.arrivedOn('/failing') < failingEvents.length * ATTEMPTS && performance.now() < retryDeadline) await sleep(250);
      const failingAttempts = receiver.arrivedOn('/failing');
      await sleep(2_000); // a seventh attempt would arrive about now
      const workerRss = await rssMb(worker.process.pid);

      return [
        row(
          `pipeline alone: ${burst} events to 1 endpoint, deliveries/s; ratio = ÷ bare undici loop`,
          { ...pipe, rate: pipe.rate },
          {
            ratio: toBare,
            goal: `≥ ${MIN_RATE.toLocaleString('en-US')}/s, ≥ ${MIN_TO_BARE} × bare`,
            ...judge([
              check('deliveries/s', pipe.rate, `≥ ${MIN_RATE}`, pipe.rate >= MIN_RATE),
              check('÷ bare undici loop', toBare, `≥ ${MIN_TO_BARE}`, toBare >= MIN_TO_BARE),
              check('events delivered of each burst', Math.min(...pipeline.map((one) => one.count)), `= ${burst}`, allArrived),
            ]),
            samples: pipeline.map((one) => Math.round(one.rate)),
          },
        ),
        row(
          `bare undici loop: the same signed POSTs, ${BARE_IN_FLIGHT} in flight`,
          { rate: bareRate, p50: 0, p99: 0, count: burst * ROUNDS, seconds: 0, cost: addCosts(...bare.map((one) => one.cost)) },
          {
            samples: bare.map((one) => Math.round(one.rate)),
          },
        ),
        row(
          `10 endpoints, one slow (${SLOW_MS / 1000} s) and one failing: the ${HEALTHY} healthy, event→receipt`,
          { ...ten.value, cost: ten.cost },
          {
            goal: `p99 < ${MAX_P99_MS} ms, failing gets ${ATTEMPTS} attempts`,
            ...judge([
              check('healthy p99 ms', ten.value.p99, `< ${MAX_P99_MS}`, ten.value.p99 < MAX_P99_MS),
              check('healthy events delivered', ten.value.count, `= ${healthyIds.length}`, ten.value.count === healthyIds.length),
              check('attempts per failing event', failingAttempts / failingEvents.length, `= ${ATTEMPTS}`, failingAttempts === failingEvents.length * ATTEMPTS),
            ]),
          },
        ),
        row(
          `worker RSS after the webhook runs: ${workerRss === null ? 'unknown' : `${Math.round(workerRss)} MB`}`,
          { rate: 0, p50: 0, p99: 0, count: 0, seconds: 0 },
          {
            ratio: workerRss === null ? null : workerRss / MAX_WORKER_RSS_MB,
            goal: `≤ ${MAX_WORKER_RSS_MB} MB`,
            ...(workerRss === null
              ? { verdict: 'INVALID' as const }
              : judge([check('worker RSS MB', workerRss, `≤ ${MAX_WORKER_RSS_MB}`, workerRss <= MAX_WORKER_RSS_MB)])),
          },
        ),
      ];
    } finally {
      for (const userId of owners) await removeOwner(db, userId);
      await stopRallyWorker(worker);
      await receiver.close();
      await db.end();
    }
  },
};
