// Signing under load, on the seeded database (100,000 petitions, 1,000,000 signatures): through the
// real API (POST /v1/petitions/{id}/signatures, every request a different user with their own access
// token) on (a) one hot petition and (b) 10,000 petitions in turn, with group commit as configured;
// (c) the same API writing each request on its own (RALLY_SIGN_BATCH_MAX=1: the design before group
// commit, on a second hot petition) for the before/after figure; then (d) the same statements the
// API runs for a batch (petitionFactsStatement and signBatchStatement of core/signatures/, imported,
// so they cannot drift) driven for one signature at a time by a tight `pg` loop with as many
// connections as the load generator has, on the same two targets.
// Goals (issue 16): hot ≥ 2,000/s with p99 < 100 ms; hot ≥ 0.50 × the raw loop; spread ≥ 2,000/s;
// hot ≥ 0.80 × spread; the API's resident memory after the signing runs ≤ 200 MB.
//
// The API under test is a second API process with the per-IP signing limit raised (all load comes
// from one address), beside the embedded identity provider that publishes the key the minted
// tokens are signed with.
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { petitionFactsStatement, type SignatureInput } from '../../../core/signatures/sign.ts';
import { signBatchStatement } from '../../../core/signatures/sign-statement.ts';
import { viewerOf } from '../../../core/petitions/policy.ts';
import { freePort, startExtraApi } from '../environment.ts';
import type { LoadResult } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { ensureSeeded, SEED_ISSUER } from '../seed.ts';
import { createSignerPool, measureSigning, planned, startIdentityProvider } from '../signers.ts';

const NAME = 'signing';
const SPREAD_PETITIONS = 10_000;
const MIN_API_TO_RAW = 0.5;
const MIN_HOT_TO_SPREAD = 0.8;
const MIN_RATE = 2_000;
const MAX_P99_MS = 100;
const MAX_RSS_MB = 200;
const RAW_ISSUER = 'rally-bench-raw';
const SIGN_LIMIT = '1000000000';

type Hot = { id: string; slug: string; signatures: number };
type Targets = { hot: Hot; before: Hot; spread: string[] };

async function pickTargets(client: pg.Client): Promise<Targets> {
  const listed = `FROM petitions p JOIN users u ON u.id = p.creator_id
    WHERE u.identity_issuer = $1 AND p.status = 'active' AND p.visibility = 'public' AND p.deleted_at IS NULL`;
  const hot = await client.query<{ id: string; slug: string; signatures: string }>(
    `SELECT p.id, p.slug, (SELECT sum(count) FROM signature_counters sc WHERE sc.petition_id = p.id) AS signatures ${listed}
     ORDER BY p.signature_count DESC, p.id LIMIT 2`,
    [SEED_ISSUER],
  );
  const [row, second] = hot.rows.map((found) => ({ id: found.id, slug: found.slug, signatures: Number(found.signatures) }));
  if (!row || !second) throw new Error('the seeded data has fewer than two active public petitions');
  const spread = await client.query<{ id: string }>(`SELECT p.id ${listed} AND p.id <> ALL($2::uuid[]) ORDER BY p.id LIMIT $3`, [
    SEED_ISSUER,
    [row.id, second.id],
    SPREAD_PETITIONS,
  ]);
  if (spread.rows.length < SPREAD_PETITIONS) throw new Error(`the seeded data has only ${spread.rows.length} other active public petitions`);
  return { hot: row, before: second, spread: spread.rows.map((petition) => petition.id) };
}

/** push(...items) overflows the stack for long arrays. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function insertRawUsers(client: pg.Client, count: number): Promise<string[]> {
  const result = await client.query<{ id: string }>(
    `
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
    SELECT $1, subject, subject || '@example.invalid', 'Raw signer ' || left(subject, 8), 'bench-raw-' || subject
    FROM (SELECT gen_random_uuid()::text AS subject FROM generate_series(1, $2::int)) AS fresh
    RETURNING id`,
    [RAW_ISSUER, count],
  );
  return result.rows.map((row) => row.id);
}

/** The API's statements for a batch of one, in a tight loop on every client for `seconds`; stops early if it runs out of users. */
/** Slonik numbers placeholders $slonik_N and turns them into $N when it executes a query; pg wants $N. */
function asPg(statement: { sql: string; values: readonly unknown[] }): [string, unknown[]] {
  return [statement.sql.replaceAll('$slonik_', '$'), [...statement.values]];
}

async function rawLoop(clients: pg.Client[], users: readonly string[], start: number, seconds: number, petitionFor: (index: number) => string) {
  let next = start;
  let failures = 0;
  let exhausted = false;
  const latencies: number[] = [];
  const began = performance.now();
  const deadline = began + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        const index = next++;
        if (index >= users.length) {
          exhausted = true;
          return;
        }
        const userId = users[index]!;
        const input: SignatureInput = {
          petitionId: petitionFor(index),
          userId,
          viewer: viewerOf({ userId, role: 'user' }),
          actor: { type: 'user', id: userId },
          comment: null,
          isAnonymous: false,
          displayLocation: null,
          place: { city: null, region: null, country: null, latitude: null, longitude: null },
          referrerSlug: null,
          accessCode: null,
        };
        const at = performance.now();
        try {
          const facts = await client.query<{ signature_goal: string | null }>(...asPg(petitionFactsStatement([input.petitionId])));
          const goal = facts.rows[0]?.signature_goal ?? null;
          const result = await client.query<{ signature_id: string | null }>(
            ...asPg(signBatchStatement([input], [{ id: input.petitionId, goal: goal === null ? null : Number(goal) }])),
          );
          if (!result.rows[0]?.signature_id) failures += 1;
        } catch {
          failures += 1;
        }
        latencies.push(performance.now() - at);
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const result: LoadResult = {
    requestsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors: 0,
    timeouts: 0,
    non2xx: failures,
    requests: latencies.length,
    durationSec: elapsed,
  };
  return { result, next, exhausted };
}

/** Raw phase: warm-up, users topped up for its rate, then the measurement. */
async function measureRaw(
  env: BenchEnvironment,
  setup: pg.Client,
  clients: pg.Client[],
  users: string[],
  label: string,
  petitionFor: (index: number) => string,
): Promise<LoadResult> {
  const { load } = env;
  const forWarmup = planned(0, 0, load.warmupSec, clients.length);
  if (users.length < forWarmup) append(users, await insertRawUsers(setup, forWarmup - users.length));
  env.log(`${label}: warming up for ${load.warmupSec} s`);
  const warm = await rawLoop(clients, users, 0, load.warmupSec, petitionFor);
  const needed = planned(warm.next, warm.result.requestsPerSecond, load.durationSec, clients.length);
  if (users.length < needed) append(users, await insertRawUsers(setup, needed - users.length));
  env.log(`${label}: measuring for ${load.durationSec} s (${clients.length} connections)`);
  const { result, exhausted } = await rawLoop(clients, users, warm.next, load.durationSec, petitionFor);
  if (exhausted) env.log(`warning: ${label} ran out of users after ${result.durationSec.toFixed(1)} s`);
  env.log(
    `${label}: ${Math.round(result.requestsPerSecond)} signatures/s, p50 ${result.p50Ms.toFixed(1)} ms, ` +
      `p99 ${result.p99Ms.toFixed(1)} ms, ${result.non2xx} failed`,
  );
  return result;
}

/** Resident memory of a process in MB, from /proc (Linux); null where that cannot be read. */
async function residentMegabytes(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kilobytes === undefined ? null : Number(kilobytes) / 1024;
}

/**
 * The API's V8 heap in MB from its /metrics (prom-client's default series): what is in use, and what
 * V8 holds for it. Their gap is heap V8 keeps after a burst of allocation, which RSS includes.
 */
async function heapMegabytes(apiUrl: string): Promise<{ used: number; total: number } | null> {
  const exposition = await fetch(`${apiUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })
    .then((response) => (response.ok ? response.text() : ''))
    .catch(() => '');
  const bytes = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(exposition)?.[1] ?? Number.NaN);
  const [used, total] = [bytes('nodejs_heap_size_used_bytes'), bytes('nodejs_heap_size_total_bytes')];
  return Number.isFinite(used) && Number.isFinite(total) ? { used: used / 1_048_576, total: total / 1_048_576 } : null;
}

function row(target: string, load: LoadResult, extra: Partial<ResultRow> = {}): ResultRow {
  return { ...load, scenario: NAME, target, ratio: null, goal: null, verdict: null, ...extra };
}

export const scenario: Scenario = {
  name: NAME,
  goal:
    `POST /v1/petitions/{id}/signatures (a new user each) on 1 hot petition and on ` +
    `${SPREAD_PETITIONS.toLocaleString('en-US')}: each ≥ ${MIN_RATE.toLocaleString('en-US')}/s, ` +
    `hot p99 < ${MAX_P99_MS} ms, hot ≥ ${MIN_API_TO_RAW.toFixed(2)} × the same statements in a raw pg ` +
    `loop, hot ≥ ${MIN_HOT_TO_SPREAD.toFixed(2)} × spread, API RSS ≤ ${MAX_RSS_MB} MB`,
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
      env.log(
        `${NAME}: hot petition ${chosen.hot.slug} (${chosen.hot.signatures.toLocaleString('en-US')} ` +
          `signatures); spread over ${chosen.spread.length.toLocaleString('en-US')} petitions`,
      );
      const idpPort = String(await freePort());
      const api = await startExtraApi(env, { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', RALLY_SIGN_LIMIT_PER_HOUR: SIGN_LIMIT }, 'api-sign');
      stops.push(api.stop);
      const idp = await startIdentityProvider(api.serviceEnv, env.log);
      stops.push(idp.stop);

      // Each signer signs the hot petition once, one of the spread petitions once, and the second hot petition once.
      const pool = createSignerPool(api.serviceEnv, env.log);
      // A fresh API process is cold (JIT, key sets, pools): it first signs other spread petitions, so
      // the hot row does not carry the start-up that the rows after it are spared.
      const warm = (index: number, offset: number) => chosen.spread[(index + offset) % SPREAD_PETITIONS]!;
      await measureSigning(env, api, pool, 'API sign, warming the process up', (index) => warm(index, SPREAD_PETITIONS / 2));
      const hot = await measureSigning(env, api, pool, 'API sign, hot petition', () => chosen.hot.id);
      const spread = await measureSigning(
        env,
        api,
        pool,
        `API sign, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`,
        (index) => chosen.spread[index % SPREAD_PETITIONS]!,
      );
      const rssMb = await residentMegabytes(api.pid);
      const heap = await heapMegabytes(api.url);
      const heapNote = heap ? ` (V8 heap: ${Math.round(heap.used)} MB in use of ${Math.round(heap.total)} MB held)` : '';
      await api.stop();
      // The same tokens are valid there: same audience (PUBLIC_URL) and the same identity provider.
      const single = await startExtraApi(
        env,
        { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', RALLY_SIGN_LIMIT_PER_HOUR: SIGN_LIMIT, PUBLIC_URL: api.url, RALLY_SIGN_BATCH_MAX: '1' },
        'api-sign-single',
      );
      stops.push(single.stop);
      await measureSigning(env, single, pool, 'API sign, warming the process up', (index) => warm(index, SPREAD_PETITIONS / 4));
      const before = await measureSigning(env, single, pool, 'API sign, hot petition, one statement per request', () => chosen.before.id);
      await single.stop();
      await idp.stop();

      const clients = await Promise.all(
        Array.from({ length: env.load.connections }, async () => {
          const client = new pg.Client({ connectionString: env.databaseUrl });
          await client.connect();
          stops.push(() => client.end());
          return client;
        }),
      );
      const users: string[] = [];
      const rawHot = await measureRaw(env, setup, clients, users, 'raw pg loop, hot petition', () => chosen.hot.id);
      const rawSpread = await measureRaw(
        env,
        setup,
        clients,
        users,
        `raw pg loop, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`,
        (index) => chosen.spread[index % SPREAD_PETITIONS]!,
      );

      const ratio = (a: LoadResult, b: LoadResult) => (b.requestsPerSecond > 0 ? a.requestsPerSecond / b.requestsPerSecond : 0);
      const hotToRaw = ratio(hot, rawHot);
      const hotToSpread = ratio(hot, spread);
      const rate = `≥ ${MIN_RATE.toLocaleString('en-US')}/s`;
      const memory: LoadResult = {
        requestsPerSecond: 0,
        p50Ms: 0,
        p99Ms: 0,
        errors: 0,
        timeouts: 0,
        non2xx: 0,
        requests: hot.requests + spread.requests,
        durationSec: 0,
      };
      return [
        row('API sign, hot petition', hot, {
          ratio: hot.requestsPerSecond / MIN_RATE,
          goal: `${rate}, p99 < ${MAX_P99_MS} ms`,
          verdict: verdictFor(hot.requestsPerSecond >= MIN_RATE && hot.p99Ms < MAX_P99_MS, hot),
        }),
        row('API sign, hot ÷ raw pg loop (same statements, same concurrency)', hot, {
          ratio: hotToRaw,
          goal: `≥ ${MIN_API_TO_RAW.toFixed(2)}`,
          verdict: verdictFor(hotToRaw >= MIN_API_TO_RAW, hot, rawHot),
        }),
        row(`API sign, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, spread, {
          ratio: spread.requestsPerSecond / MIN_RATE,
          goal: rate,
          verdict: verdictFor(spread.requestsPerSecond >= MIN_RATE, spread),
        }),
        row('API sign, hot ÷ spread', hot, {
          ratio: hotToSpread,
          goal: `≥ ${MIN_HOT_TO_SPREAD.toFixed(2)}`,
          verdict: verdictFor(hotToSpread >= MIN_HOT_TO_SPREAD, hot, spread),
        }),
        row(`API RSS after signing: ${rssMb === null ? 'unknown' : `${Math.round(rssMb)} MB`}${heapNote}`, memory, {
          ratio: rssMb === null ? null : rssMb / MAX_RSS_MB,
          goal: `≤ ${MAX_RSS_MB} MB`,
          verdict: rssMb === null ? 'INVALID' : rssMb <= MAX_RSS_MB ? 'PASS' : 'MISS',
        }),
        row('before: one statement per request (RALLY_SIGN_BATCH_MAX=1), 2nd hot petition; ratio = grouped ÷ this', before, { ratio: ratio(hot, before) }),
        row('raw pg loop, hot petition', rawHot),
        row(`raw pg loop, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, rawSpread),
      ];
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => env.log(`${NAME}: could not stop: ${(error as Error).message}`));
      // The outbox rows of these signatures concern petitions without webhook endpoints; marked
      // dispatched here, they do not queue ahead of the events of scenarios that run a dispatcher.
      if (targets) {
        await setup.query(
          `UPDATE events SET dispatched_at = now() WHERE position > $1 AND dispatched_at IS NULL AND type = ` +
            `'signature.created' AND petition_id = ANY($2::uuid[])`,
          [firstPosition, [targets.hot.id, targets.before.id, ...targets.spread]],
        );
      }
      await setup.end();
    }
  },
};
