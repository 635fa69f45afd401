// Drives HTTP load with autocannon and boils its result down to the figures the report shows.
// Every run is bounded: autocannon stops itself after `duration`, and a watchdog stops it anyway
// if it has not finished well after that (a hung target must not hang the benchmark).
import autocannon from 'autocannon';

export type LoadSettings = Readonly<{
  /** Measured seconds per target (BENCH_DURATION). */
  durationSec: number;
  /** Seconds of load before each measurement, thrown away: JIT, connection set-up, pools filling. */
  warmupSec: number;
  connections: number;
  pipelining: number;
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
}>;

export type LoadRequest = Readonly<{
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** Called before every request (autocannon's setupRequest), e.g. to rotate tokens, paths or bodies. */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
}>;

const WATCHDOG_GRACE_MS = 30_000;
const REQUEST_TIMEOUT_SEC = 10;

function runAutocannon(url: string, settings: LoadSettings, durationSec: number, request: LoadRequest): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    let watchdog: NodeJS.Timeout | undefined;
    const instance = autocannon(
      {
        url,
        method: request.method ?? 'GET',
        headers: request.headers,
        body: request.body,
        requests: request.setupRequest ? [{ setupRequest: request.setupRequest }] : undefined,
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
    await runAutocannon(url, settings, settings.warmupSec, request);
  }
  log(`${label}: measuring for ${settings.durationSec} s (${settings.connections} connections, pipelining ${settings.pipelining})`);
  const result = summarise(await runAutocannon(url, settings, settings.durationSec, request));
  log(`${label}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ` +
    `${result.errors} errors, ${result.non2xx} non-2xx`);
  return result;
}
