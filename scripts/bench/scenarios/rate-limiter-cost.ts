// What the rate limiter costs on the hot path with the work it really does: GET /v1/petitions?limit=20 (served from memory), each connection cycling through
// KEYS users' tokens, on two fresh APIs differing only in RALLY_RATE_LIMIT_ENABLED, in interleaved rounds (interleave.ts). Goal (issue 3): with the limiter on,
// the route keeps at least 80% of its throughput without it.
import { startExtraApi, type ExtraApi } from '../environment.ts';
import { measureInterleaved, ratioOf } from '../interleave.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { startSigningApi } from '../sign-stream.ts';
import { mintSigners } from '../signers.ts';

const NAME = 'rate-limiter-cost';
const ROUTE = '/v1/petitions?limit=20';
const KEYS = 1_000;
const MIN_RATIO = 0.8;
// On the limited API the limit is so high (RPS and burst 10⁹) that every request is counted in its user's
// bucket but none is refused.
const HUGE = '1000000000';

/** Fails the scenario (a broken set-up, not a slow API) when the switch did not take effect or the token is refused. */
async function assertLimiter(env: BenchEnvironment, url: string, token: string, expectOn: boolean): Promise<void> {
  const response = await fetch(`${url}${ROUTE}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5_000) });
  await response.arrayBuffer();
  const on = response.headers.has('x-ratelimit-limit');
  if (response.status !== 200) env.log(`warning: GET ${ROUTE} with a token answered ${response.status}; the ratio will be INVALID`);
  if (on !== expectOn)
    throw new Error(
      `the API at ${url} ${on ? 'sends' : 'does not send'} X-RateLimit-* headers, so the limiter is ` +
        `${on ? 'on' : 'off'} where it should be ${expectOn ? 'on' : 'off'}`,
    );
}

export const scenario: Scenario = {
  name: NAME,
  goal:
    `GET ${ROUTE} with ${KEYS.toLocaleString('en-US')} users' tokens, rate limiter on (limits never ` +
    `reached), keeps ≥ ${MIN_RATIO.toFixed(2)} × its req/s with the limiter off`,
  async run(env): Promise<ResultRow[]> {
    // Both processes verify tokens for the same audience from the same identity provider.
    const limited = await startSigningApi(env, 'api-limiter-on', {
      RALLY_RATE_LIMIT_ENABLED: 'true',
      RALLY_RATE_LIMIT_RPS: HUGE,
      RALLY_RATE_LIMIT_BURST: HUGE,
    });
    let unlimited: ExtraApi | undefined;
    try {
      const { RALLY_IDP_PORT, PUBLIC_URL } = limited.api.serviceEnv;
      unlimited = await startExtraApi(env, { RALLY_RATE_LIMIT_ENABLED: 'false', RALLY_IDP_PORT, OIDC_ISSUER: '', PUBLIC_URL }, 'api-limiter-off');
      const tokens = (await mintSigners(limited.api.serviceEnv, KEYS, env.log)).map((signer) => signer.accessToken);
      await assertLimiter(env, limited.api.url, tokens[0]!, true);
      await assertLimiter(env, unlimited.url, tokens[0]!, false);
      const sequence = tokens.map((token) => ({ method: 'GET', path: ROUTE, headers: { authorization: `Bearer ${token}` } }));
      const [on, off] = await measureInterleaved(
        [
          { label: `limiter on: GET ${ROUTE}, ${KEYS} users`, url: limited.api.url, request: { sequence } },
          { label: `limiter off: GET ${ROUTE}, ${KEYS} users`, url: unlimited.url, request: { sequence } },
        ],
        env.load,
        env.log,
      );
      const ratio = ratioOf(on!, off!);
      return [
        {
          ...on!,
          scenario: NAME,
          target: `limiter on: GET ${ROUTE}, ${KEYS.toLocaleString('en-US')} users`,
          ratio,
          goal: `≥ ${MIN_RATIO.toFixed(2)} × off`,
          verdict: verdictFor(ratio >= MIN_RATIO, on!, off!),
        },
        { ...off!, scenario: NAME, target: `limiter off: GET ${ROUTE}, ${KEYS.toLocaleString('en-US')} users`, ratio: null, goal: null, verdict: null },
      ];
    } finally {
      await unlimited?.stop();
      await limited.stop();
    }
  },
};
