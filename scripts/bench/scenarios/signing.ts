// Signing under load, on the seeded database (100,000 petitions, 1,000,000 signatures): through the
// real API (POST /v1/petitions/{id}/signatures, every request a different user with their own access
// token) on (a) one hot petition and (b) 10,000 petitions in turn; then (c) the same statement
// (signStatement of core/signatures/sign.ts, imported, so it cannot drift) driven directly by a
// tight `pg` loop with as many connections as the API's pool, on the same two targets.
// Goals: the API keeps ≥ 0.50 of the raw rate; the hot petition keeps ≥ 0.80 of the spread rate;
// the hot petition takes ≥ 1,000 signatures/s.
//
// The API under test is a second API process with the per-IP signing limit raised (all load comes
// from one address), beside the embedded identity provider that publishes the key the minted
// tokens are signed with.
import pg from 'pg';
import type autocannon from 'autocannon';
import { signStatement, type SignatureInput } from '../../../core/signatures/sign.ts';
import { viewerOf } from '../../../core/petitions/policy.ts';
import { freePort, startExtraApi, type ExtraApi } from '../environment.ts';
import { measureLoad, type LoadResult } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { ensureSeeded, SEED_ISSUER } from '../seed.ts';
import { mintSigners, startIdentityProvider, type Signer } from '../signers.ts';

const NAME = 'signing';
const SPREAD_PETITIONS = 10_000;
const MIN_API_TO_RAW = 0.5;
const MIN_HOT_TO_SPREAD = 0.8;
const MIN_HOT_RATE = 1_000;
/** Signers are provisioned for the warm-up's rate × this, so that none is used twice. */
const RATE_MARGIN = 1.6;
/** Assumed at least, so a slow warm-up does not leave the measurement short of signers. */
const FLOOR_RATE = 800;
/** The API's pool (api/main.ts): the raw loop gets as many connections. */
const RAW_CONNECTIONS = 20;
const RAW_ISSUER = 'rally-bench-raw';
const SIGN_LIMIT = '1000000000';

type Targets = { hot: { id: string; slug: string; signatures: number }; spread: string[] };

async function pickTargets(client: pg.Client): Promise<Targets> {
  const listed = `FROM petitions p JOIN users u ON u.id = p.creator_id
    WHERE u.identity_issuer = $1 AND p.status = 'active' AND p.visibility = 'public' AND p.deleted_at IS NULL`;
  const hot = await client.query<{ id: string; slug: string; signatures: string }>(
    `SELECT p.id, p.slug, (SELECT sum(count) FROM signature_counters sc WHERE sc.petition_id = p.id) AS signatures ${listed}
     ORDER BY p.signature_count DESC, p.id LIMIT 1`, [SEED_ISSUER]);
  const row = hot.rows[0];
  if (!row) throw new Error('the seeded data has no active public petition');
  const spread = await client.query<{ id: string }>(`SELECT p.id ${listed} AND p.id <> $2 ORDER BY p.id LIMIT $3`, [SEED_ISSUER, row.id, SPREAD_PETITIONS]);
  if (spread.rows.length < SPREAD_PETITIONS) throw new Error(`the seeded data has only ${spread.rows.length} other active public petitions`);
  return { hot: { id: row.id, slug: row.slug, signatures: Number(row.signatures) }, spread: spread.rows.map((petition) => petition.id) };
}

/** push(...items) overflows the stack for long arrays. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

function planned(used: number, rate: number, seconds: number, connections: number): number {
  return used + Math.ceil(Math.max(rate, FLOOR_RATE) * seconds * RATE_MARGIN) + connections;
}

/** Distinct users with tokens, minted as needed; one phase's cursor never hands out a signer twice. */
function createSignerPool(serviceEnv: NodeJS.ProcessEnv, log: (line: string) => void) {
  const signers: Signer[] = [];
  return {
    signers,
    async ensure(count: number): Promise<void> {
      if (count > signers.length) append(signers, await mintSigners(serviceEnv, count - signers.length, log));
    },
  };
}

/** API phase: a warm-up, signers topped up for its rate, then the measurement; each request a new signer. */
async function measureApi(env: BenchEnvironment, api: ExtraApi, pool: ReturnType<typeof createSignerPool>, label: string, petitionFor: (index: number) => string): Promise<LoadResult> {
  let next = 0;
  let reused = 0;
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    const index = next++;
    // Past the end a signer signs a second time (409): the verdict then says INVALID, not a rate.
    if (index >= pool.signers.length) reused += 1;
    const signer = pool.signers[index % pool.signers.length]!;
    request.method = 'POST';
    request.path = `/v1/petitions/${petitionFor(index)}/signatures`;
    request.headers = { ...request.headers, authorization: `Bearer ${signer.accessToken}`, 'content-type': 'application/json' };
    request.body = '{}';
    return request;
  };
  const { load } = env;
  await pool.ensure(planned(0, 0, load.warmupSec, load.connections));
  const warm = await measureLoad(`${label} (warm-up)`, `${api.url}/v1`, { ...load, durationSec: load.warmupSec, warmupSec: 0 }, env.log, { setupRequest });
  await pool.ensure(planned(next, warm.requestsPerSecond, load.durationSec, load.connections));
  const result = await measureLoad(label, `${api.url}/v1`, { ...load, warmupSec: 0 }, env.log, { setupRequest });
  if (reused > 0) env.log(`warning: ${label} ran out of fresh signers (${reused} reused); its row is INVALID`);
  return result;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function insertRawUsers(client: pg.Client, count: number): Promise<string[]> {
  const result = await client.query<{ id: string }>(`
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
    SELECT $1, subject, subject || '@example.invalid', 'Raw signer ' || left(subject, 8), 'bench-raw-' || subject
    FROM (SELECT gen_random_uuid()::text AS subject FROM generate_series(1, $2::int)) AS fresh
    RETURNING id`, [RAW_ISSUER, count]);
  return result.rows.map((row) => row.id);
}

/** The signing statement in a tight loop on RAW_CONNECTIONS connections for `seconds`; stops early if it runs out of users. */
async function rawLoop(clients: pg.Client[], users: readonly string[], start: number, seconds: number, petitionFor: (index: number) => string) {
  let next = start;
  let failures = 0;
  let exhausted = false;
  const latencies: number[] = [];
  const began = performance.now();
  const deadline = began + seconds * 1000;
  await Promise.all(clients.map(async (client) => {
    while (performance.now() < deadline) {
      const index = next++;
      if (index >= users.length) {
        exhausted = true;
        return;
      }
      const userId = users[index]!;
      const input: SignatureInput = {
        petitionId: petitionFor(index), userId, viewer: viewerOf({ userId, role: 'user' }), actor: { type: 'user', id: userId }, comment: null, isAnonymous: false, displayLocation: null,
        place: { city: null, region: null, country: null, latitude: null, longitude: null }, referrerSlug: null, accessCode: null,
      };
      const statement = signStatement(input);
      const at = performance.now();
      try {
        // Slonik numbers placeholders $slonik_N and turns them into $N when it executes a query.
        const result = await client.query<{ signature_id: string | null }>(statement.sql.replaceAll('$slonik_', '$'), [...statement.values]);
        if (!result.rows[0]?.signature_id) failures += 1;
      } catch {
        failures += 1;
      }
      latencies.push(performance.now() - at);
    }
  }));
  const elapsed = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const result: LoadResult = {
    requestsPerSecond: latencies.length / elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99),
    errors: 0, timeouts: 0, non2xx: failures, requests: latencies.length, durationSec: elapsed,
  };
  return { result, next, exhausted };
}

/** Raw phase: warm-up, users topped up for its rate, then the measurement. */
async function measureRaw(env: BenchEnvironment, setup: pg.Client, clients: pg.Client[], users: string[], label: string, petitionFor: (index: number) => string): Promise<LoadResult> {
  const { load } = env;
  const forWarmup = planned(0, 0, load.warmupSec, RAW_CONNECTIONS);
  if (users.length < forWarmup) append(users, await insertRawUsers(setup, forWarmup - users.length));
  env.log(`${label}: warming up for ${load.warmupSec} s`);
  const warm = await rawLoop(clients, users, 0, load.warmupSec, petitionFor);
  const needed = planned(warm.next, warm.result.requestsPerSecond, load.durationSec, RAW_CONNECTIONS);
  if (users.length < needed) append(users, await insertRawUsers(setup, needed - users.length));
  env.log(`${label}: measuring for ${load.durationSec} s (${RAW_CONNECTIONS} connections)`);
  const { result, exhausted } = await rawLoop(clients, users, warm.next, load.durationSec, petitionFor);
  if (exhausted) env.log(`warning: ${label} ran out of users after ${result.durationSec.toFixed(1)} s`);
  env.log(`${label}: ${Math.round(result.requestsPerSecond)} signatures/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ${result.non2xx} failed`);
  return result;
}

function row(target: string, load: LoadResult, extra: Partial<ResultRow> = {}): ResultRow {
  return { ...load, scenario: NAME, target, ratio: null, goal: null, verdict: null, ...extra };
}

export const scenario: Scenario = {
  name: NAME,
  goal: `POST /v1/petitions/{id}/signatures (a new user each) on 1 hot petition and on ${SPREAD_PETITIONS.toLocaleString('en-US')}: ` +
    `API ≥ ${MIN_API_TO_RAW.toFixed(2)} × the same statement in a raw pg loop, hot ≥ ${MIN_HOT_TO_SPREAD.toFixed(2)} × spread, hot ≥ ${MIN_HOT_RATE.toLocaleString('en-US')}/s`,
  async run(env): Promise<ResultRow[]> {
    await ensureSeeded(env.databaseUrl, env.log);
    const setup = new pg.Client({ connectionString: env.databaseUrl });
    await setup.connect();
    const stops: (() => Promise<void>)[] = [];
    let targets: Targets | undefined;
    const firstPosition = (await setup.query<{ position: string }>('SELECT COALESCE(max(position), 0) AS position FROM events')).rows[0]!.position;
    try {
      const chosen = await pickTargets(setup);
      targets = chosen;
      env.log(`${NAME}: hot petition ${chosen.hot.slug} (${chosen.hot.signatures.toLocaleString('en-US')} signatures); spread over ${chosen.spread.length.toLocaleString('en-US')} petitions`);
      const idpPort = String(await freePort());
      const api = await startExtraApi(env, { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', RALLY_SIGN_LIMIT_PER_HOUR: SIGN_LIMIT }, 'api-sign');
      stops.push(api.stop);
      const idp = await startIdentityProvider(api.serviceEnv, env.log);
      stops.push(idp.stop);

      // Each signer signs the hot petition once and one of the spread petitions once.
      const pool = createSignerPool(api.serviceEnv, env.log);
      const hot = await measureApi(env, api, pool, 'API sign, hot petition', () => chosen.hot.id);
      const spread = await measureApi(env, api, pool, `API sign, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, (index) => chosen.spread[index % SPREAD_PETITIONS]!);
      await api.stop();
      await idp.stop();

      const clients = await Promise.all(Array.from({ length: RAW_CONNECTIONS }, async () => {
        const client = new pg.Client({ connectionString: env.databaseUrl });
        await client.connect();
        stops.push(() => client.end());
        return client;
      }));
      const users: string[] = [];
      const rawHot = await measureRaw(env, setup, clients, users, 'raw pg loop, hot petition', () => chosen.hot.id);
      const rawSpread = await measureRaw(env, setup, clients, users, `raw pg loop, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, (index) => chosen.spread[index % SPREAD_PETITIONS]!);

      const ratio = (a: LoadResult, b: LoadResult) => (b.requestsPerSecond > 0 ? a.requestsPerSecond / b.requestsPerSecond : 0);
      const hotToRaw = ratio(hot, rawHot);
      const spreadToRaw = ratio(spread, rawSpread);
      const hotToSpread = ratio(hot, spread);
      return [
        row('API sign, hot petition', hot, { ratio: hotToRaw, goal: `≥ ${MIN_API_TO_RAW.toFixed(2)} × raw`, verdict: verdictFor(hotToRaw >= MIN_API_TO_RAW, hot, rawHot) }),
        row(`API sign, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, spread, { ratio: spreadToRaw, goal: `≥ ${MIN_API_TO_RAW.toFixed(2)} × raw`, verdict: verdictFor(spreadToRaw >= MIN_API_TO_RAW, spread, rawSpread) }),
        row('API sign, hot ÷ spread', hot, { ratio: hotToSpread, goal: `≥ ${MIN_HOT_TO_SPREAD.toFixed(2)}`, verdict: verdictFor(hotToSpread >= MIN_HOT_TO_SPREAD, hot, spread) }),
        row('API sign, hot petition, absolute', hot, { ratio: hot.requestsPerSecond / MIN_HOT_RATE, goal: `≥ ${MIN_HOT_RATE.toLocaleString('en-US')}/s`, verdict: verdictFor(hot.requestsPerSecond >= MIN_HOT_RATE, hot) }),
        row('raw pg loop, hot petition', rawHot),
        row(`raw pg loop, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, rawSpread),
      ];
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => env.log(`${NAME}: could not stop: ${(error as Error).message}`));
      // The outbox rows of these signatures concern petitions without webhook endpoints; marked
      // dispatched here, they do not queue ahead of the events of scenarios that run a dispatcher.
      if (targets) {
        await setup.query(`UPDATE events SET dispatched_at = now() WHERE position > $1 AND dispatched_at IS NULL AND type = 'signature.created' AND petition_id = ANY($2::uuid[])`,
          [firstPosition, [targets.hot.id, ...targets.spread]]);
      }
      await setup.end();
    }
  },
};
