// How much the API's middleware stack (problems, request context, body parsing, router, route guard, envelope) costs on a route that does no I/O: GET /v1 on
// the real API process against a bare node:http server answering the same JSON with the same headers. Both get identical load, in interleaved rounds
// (interleave.ts), from the separate load generator process.
import { startBaselineServer } from '../baseline.ts';
import { measureInterleaved, ratioOf } from '../interleave.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';

const NAME = 'no-io-route';
const ROUTE = '/v1';
const MIN_RATIO = 0.6;

/**
 * The API's own `data`, so that the baseline sends a body of the same size. If the route is missing
 * (404 problem), the run still goes ahead and the verdict says INVALID rather than failing.
 */
async function fetchApiIndexData(env: BenchEnvironment): Promise<unknown> {
  const response = await fetch(`${env.apiUrl}${ROUTE}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { data?: unknown };
  if (response.status !== 200 || body.data === undefined) {
    env.log(`warning: GET ${ROUTE} answered ${response.status}, not an API index; the ratio will be INVALID`);
    return { name: 'Rally', version: '1' };
  }
  return body.data;
}

export const scenario: Scenario = {
  name: NAME,
  goal: `GET ${ROUTE} on the API reaches at least ${MIN_RATIO.toFixed(2)} × the req/s of a bare node:http server sending the same JSON`,
  async run(env): Promise<ResultRow[]> {
    const data = await fetchApiIndexData(env);
    // Started before either measurement, so both targets run beside the same set of processes.
    const baseline = await startBaselineServer(data, env.log);
    try {
      const [api, bare] = await measureInterleaved(
        [
          { label: `API GET ${ROUTE}`, url: `${env.apiUrl}${ROUTE}` },
          { label: 'bare node:http', url: `${baseline.url}${ROUTE}` },
        ],
        env.load,
        env.log,
      );
      const ratio = ratioOf(api!, bare!);
      return [
        {
          ...api!,
          scenario: NAME,
          target: `API GET ${ROUTE}`,
          ratio,
          goal: `≥ ${MIN_RATIO.toFixed(2)}`,
          verdict: verdictFor(ratio >= MIN_RATIO, api!, bare!),
        },
        { ...bare!, scenario: NAME, target: 'bare node:http', ratio: null, goal: null, verdict: null },
      ];
    } finally {
      await baseline.stop();
    }
  },
};
