// Drives HTTP load with autocannon and boils its result down to the figures the report shows. Load described as data runs in a separate process with worker
// threads (load-generator.ts); load that needs a function per request (a fresh signer each time) runs in this process. Every run is bounded: autocannon stops
// after `duration`, and a watchdog stops it anyway if it has not finished well after that (a hung target must not hang the benchmark).
import path from 'node:path';
import autocannon from 'autocannon';
import { spawnPrefixed, stopChild } from '../lib/child-process.ts';
import type { GeneratorJob } from './load-generator.ts';
import type { Meter, WindowCost } from './meter.ts';

export type LoadSettings = Readonly<{
  /** Measured seconds per target (BENCH_SECONDS). */
  durationSec: number;
  /** Seconds of load before each measurement, thrown away: JIT, connection set-up, pools filling. */
  warmupSec: number;
  connections: number;
  pipelining: number;
  /** Meters each measured window (not the warm-up): CPU per process, statements, profiles. */
  meter?: Meter;
}>;

export type LoadResult = Readonly<{
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Responses received during the measured window. */
  requests: number;
  durationSec: number;
  /** The req/s of each round when the figure is a median of interleaved rounds (interleave.ts). */
  samples?: readonly number[];
  /** What the measured window(s) cost, when a meter was given. */
  cost?: WindowCost;
}>;

/** The nearest-rank percentile `p` (0–100) of ascending `sorted`; 0 of none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * A LoadResult of latencies timed by hand (a loop of its own, not autocannon): `units` done in `seconds`,
 * p50 and p99 of `latencies` (sorted here), `failed` counted as non-2xx.
 */
export function timedResult(latencies: number[], seconds: number, options: { units?: number; failed?: number } = {}): LoadResult {
  latencies.sort((a, b) => a - b);
  const units = options.units ?? latencies.length;
  return {
    requestsPerSecond: units / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors: 0,
    timeouts: 0,
    non2xx: options.failed ?? 0,
    requests: units,
    durationSec: seconds,
  };
}

export type LoadRequest = Readonly<{
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** Called before every request (autocannon's setupRequest), e.g. to rotate tokens, paths or bodies. Runs in this process. */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
  /** Requests every connection cycles through (e.g. one per API key); runs in the generator process. */
  sequence?: GeneratorJob['requests'];
}>;

const GENERATOR_ENTRY = path.join(import.meta.dirname, 'load-generator.ts');
/** Threads of the generator process: the machine's two cores are shared with the targets anyway. */
export const GENERATOR_WORKERS = 2;

const WATCHDOG_GRACE_MS = 30_000;
const REQUEST_TIMEOUT_SEC = 10;

/** `stop` ends the generator process, after the meter has read its CPU. */
type Run = Readonly<{ pid?: number; go(): Promise<autocannon.Result>; stop(): Promise<void> }>;

/** A run ready to go: the generator process started and handed its job, or autocannon in this process. */
function prepareAutocannon(url: string, settings: LoadSettings, durationSec: number, request: LoadRequest): Promise<Run> {
  if (request.setupRequest) return Promise.resolve({ go: () => runInProcess(url, settings, durationSec, request), stop: () => Promise.resolve() });
  return prepareGenerator(url, settings, durationSec, request);
}

async function prepareGenerator(url: string, settings: LoadSettings, durationSec: number, request: LoadRequest): Promise<Run> {
  const job: GeneratorJob = {
    url,
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    requests: request.sequence,
    connections: settings.connections,
    pipelining: settings.pipelining,
    durationSec,
    timeoutSec: REQUEST_TIMEOUT_SEC,
    workers: GENERATOR_WORKERS,
  };
  const child = spawnPrefixed({ name: 'load', command: process.execPath, args: [GENERATOR_ENTRY], ipc: true });
  const exited = child.exited.then((exit): never => {
    throw new Error(`the load generator exited without a result (code ${exit.code}, signal ${exit.signal})`);
  });
  exited.catch(() => {});
  const message = (key: 'ready' | 'result') =>
    Promise.race([
      new Promise<unknown>((resolve) => child.process.once('message', (sent: Record<string, unknown>) => resolve(sent[key]))).then((value) => {
        if (!value) throw new Error(`the load generator sent no ${key}`);
        return value;
      }),
      exited,
    ]);
  const ready = message('ready');
  child.process.send(job);
  try {
    await ready;
  } catch (error) {
    await stopChild(child, 5_000);
    throw error;
  }
  return {
    pid: child.process.pid,
    async go() {
      const watchdog = setTimeout(() => void stopChild(child, 5_000), durationSec * 1000 + WATCHDOG_GRACE_MS);
      try {
        const result = message('result');
        child.process.send({ go: true });
        return (await result) as autocannon.Result;
      } finally {
        clearTimeout(watchdog);
      }
    },
    stop: async () => void (await stopChild(child, 5_000)),
  };
}

function runInProcess(url: string, settings: LoadSettings, durationSec: number, request: LoadRequest): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    let watchdog: NodeJS.Timeout | undefined;
    const instance = autocannon(
      {
        url,
        method: request.method ?? 'GET',
        headers: request.headers,
        body: request.body,
        requests: [{ setupRequest: request.setupRequest }],
        connections: settings.connections,
        pipelining: settings.pipelining,
        duration: durationSec,
        timeout: REQUEST_TIMEOUT_SEC,
      },
      (error: unknown, result: autocannon.Result) => {
        clearTimeout(watchdog);
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(result);
      },
    );
    watchdog = setTimeout(() => instance.stop(), durationSec * 1000 + WATCHDOG_GRACE_MS);
  });
}

function summarise(result: autocannon.Result): LoadResult {
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
    durationSec: result.duration,
  };
}

/** Warms the target up, then measures it, with the same settings for every target in a run. */
export async function measureLoad(
  label: string,
  url: string,
  settings: LoadSettings,
  log: (line: string) => void,
  request: LoadRequest = {},
): Promise<LoadResult> {
  if (settings.warmupSec > 0) {
    log(`${label}: warming up for ${settings.warmupSec} s`);
    const warm = await prepareAutocannon(url, settings, settings.warmupSec, request);
    await warm.go().finally(() => warm.stop());
  }
  log(`${label}: measuring for ${settings.durationSec} s (${settings.connections} connections, pipelining ${settings.pipelining})`);
  const run = await prepareAutocannon(url, settings, settings.durationSec, request);
  const { meter } = settings;
  // The generator process is metered as `load`; autocannon in this process counts as the harness.
  meter?.register('load', run.pid);
  const metered = await (meter ? meter.measure(label, run.go) : run.go().then((value) => ({ value, cost: undefined }))).finally(async () => {
    meter?.unregister(run.pid);
    await run.stop();
  });
  const result: LoadResult = { ...summarise(metered.value), ...(metered.cost ? { cost: metered.cost } : {}) };
  log(
    `${label}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ` +
      `${result.errors} errors, ${result.non2xx} non-2xx`,
  );
  return result;
}
