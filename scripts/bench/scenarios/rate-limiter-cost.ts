// What the rate limiter costs on the hot path: GET /v1 (no I/O) on two fresh API processes that
// differ only in RALLY_RATE_LIMIT_ENABLED. On the first, the limit is so high (RPS and burst 10⁹)
// that every request is checked and counted but none is refused; the second has no limiter at all.
// Goal (issue 3): with the limiter on, the route keeps at least 80% of its throughput without it.
import { startExtraApi, type ExtraApi } from '../environment.ts';
import { measureLoad } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';

const NAME = 'rate-limiter-cost';
const ROUTE = '/v1';
const MIN_RATIO = 0.8;
const HUGE = '1000000000';

/** Fails the scenario (a broken set-up, not a slow API) when the switch did not take effect. */
async function assertLimiter(env: BenchEnvironment, api: ExtraApi, expectOn: boolean): Promise<void> {
  const response = await fetch(`${api.url}${ROUTE}`, { signal: AbortSignal.timeout(5_000) });
  await response.arrayBuffer();
  const on = response.headers.has('x-ratelimit-limit');
  if (response.status !== 200) env.log(`warning: GET ${ROUTE} answered ${response.status}; the ratio will be INVALID`);
  if (on !== expectOn) throw new Error(`the API at ${api.url} ${on ? 'sends' : 'does not send'} X-RateLimit-* headers, so the limiter is ${on ? 'on' : 'off'} where it should be ${expectOn ? 'on' : 'off'}`);
}

export const scenario: Scenario = {
  name: NAME,
  goal: `GET ${ROUTE} with the rate limiter on (limits never reached) keeps at least ${MIN_RATIO.toFixed(2)} × its req/s with the limiter off`,
  async run(env): Promise<ResultRow[]> {
    const started: ExtraApi[] = [];
    try {
      // Both started before either is measured, so both measurements run beside the same processes.
      const limited = await startExtraApi(env, { RALLY_RATE_LIMIT_ENABLED: 'true', RALLY_RATE_LIMIT_RPS: HUGE, RALLY_RATE_LIMIT_BURST: HUGE }, 'api-limiter-on');
      started.push(limited);
      const unlimited = await startExtraApi(env, { RALLY_RATE_LIMIT_ENABLED: 'false' }, 'api-limiter-off');
      started.push(unlimited);
      await assertLimiter(env, limited, true);
      await assertLimiter(env, unlimited, false);

      const off = await measureLoad(`limiter off: GET ${ROUTE}`, `${unlimited.url}${ROUTE}`, env.load, env.log);
      const on = await measureLoad(`limiter on: GET ${ROUTE}`, `${limited.url}${ROUTE}`, env.load, env.log);
      const ratio = off.requestsPerSecond > 0 ? on.requestsPerSecond / off.requestsPerSecond : 0;
      return [
        { ...on, scenario: NAME, target: `limiter on: GET ${ROUTE}`, ratio, goal: `≥ ${MIN_RATIO.toFixed(2)} × off`, verdict: verdictFor(ratio >= MIN_RATIO, on, off) },
        { ...off, scenario: NAME, target: `limiter off: GET ${ROUTE}`, ratio: null, goal: null, verdict: null },
      ];
    } finally {
      for (const api of started.reverse()) await api.stop();
    }
  },
};
