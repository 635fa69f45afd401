// Signing under load on the seeded database, through the real API with a production worker: (a) one hot petition, (b) 10,000 petitions in turn, (c) the hot one
// with a webhook subscriber, (d) a bare node:http server, (e) the API's statements in a tight `pg` loop, (f) pgbench. Goals (issues 16, 28, 43): hot and spread
// ≥ 2,000/s, hot p99 < 100 ms, and the ratios, delivery and cost goals the constants below name.
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { petitionFactsStatement } from '../../../core/signatures/sign.ts';
import { signBatchStatement } from '../../../core/signatures/sign-statement.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { generateSigningSecret } from '../../../core/webhooks/signing-secrets.ts';
import { measureSigning } from '../address-load.ts';
import { startBaselineServer } from '../baseline.ts';
import { freePort, PRODUCTION_RATE_LIMITS, startExtraApi } from '../environment.ts';
import { combineRounds, ROUNDS } from '../interleave.ts';
import { combineKeepUps, deliveriesSince, outboxPosition, type KeepUp } from '../keep-up.ts';
import { measureLoad, timedResult, type LoadResult } from '../load.ts';
import { measurePgbench } from '../pgbench.ts';
import { check, judge, verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { ensureSeeded, SEED_ISSUER } from '../seed.ts';
import { signingCostRows } from '../signing-costs.ts';
import { createSignerPool, planned, startIdentityProvider } from '../signers.ts';
import { benchSecretBox, productionServiceEnv, startRallyWorker, startReceiver, stopRallyWorker } from '../webhook-kit.ts';
import type { PrefixedChild } from '../../lib/child-process.ts';
import { plainSignatureInput } from '../../../test/support/signature-input.ts';

// Goals in full: hot ≥ 2,000/s with p99 < 100 ms; spread ≥ 2,000/s; hot ≥ 0.80 × spread; hot ≥ 0.50 × the raw
// loop; with a subscriber ≥ 0.85 × without; keep-up ≥ 0.95, p99 event → receipt < 500 ms (issue 45), none lost, no second
// delivery id; the per-signature costs of signing-costs.ts; API RSS after signing ≤ 200 MB.
const NAME = 'signing';
const SPREAD_PETITIONS = 10_000;
const MIN_API_TO_RAW = 0.5;
const MIN_HOT_TO_SPREAD = 0.8;
const MIN_RATE = 2_000;
const MAX_P99_MS = 100;
const MAX_RSS_MB = 200;
const MIN_SUBSCRIBED_TO_BARE = 0.85;
const MIN_KEEP_UP = 0.95;
const MAX_DELIVERY_P99_MS = 500;
const RAW_ISSUER = 'rally-bench-raw';
const SIGNING_API = 'api-sign';

type Hot = { id: string; slug: string; signatures: number };
type Targets = { hot: Hot & { ownerId: string }; spread: string[] };

async function pickTargets(client: pg.Client): Promise<Targets> {
  const listed = `FROM petitions p JOIN users u ON u.id = p.creator_id
    WHERE u.identity_issuer = $1 AND p.status = 'active' AND p.visibility = 'public' AND p.deleted_at IS NULL`;
  const hot = await client.query<{ id: string; slug: string; signatures: string; creator_id: string }>(
    `SELECT p.id, p.slug, p.creator_id, (SELECT sum(count) FROM signature_counters sc WHERE sc.petition_id = p.id) AS signatures ${listed}
     ORDER BY p.signature_count DESC, p.id LIMIT 1`,
    [SEED_ISSUER],
  );
  const found = hot.rows[0];
  if (!found) throw new Error('the seeded data has no active public petition');
  const row = { id: found.id, slug: found.slug, signatures: Number(found.signatures), ownerId: found.creator_id };
  // Petitions of other owners: the hot owner's endpoint must hear only the hot petition's events.
  const spread = await client.query<{ id: string }>(`SELECT p.id ${listed} AND p.creator_id <> $2 ORDER BY p.id LIMIT $3`, [
    SEED_ISSUER,
    row.ownerId,
    SPREAD_PETITIONS,
  ]);
  if (spread.rows.length < SPREAD_PETITIONS) throw new Error(`the seeded data has only ${spread.rows.length} other active public petitions`);
  return { hot: row, spread: spread.rows.map((petition) => petition.id) };
}

/** push(...items) overflows the stack for long arrays. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

async function insertRawUsers(client: pg.Client, count: number): Promise<string[]> {
  const result = await client.query<{ id: string }>(
    `
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, email_verified)
    SELECT $1, subject, subject || '@example.invalid', 'Raw signer ' || left(subject, 8), 'bench-raw-' || subject, true
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
        const input = plainSignatureInput(petitionFor(index), userId);
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
  const result = timedResult(latencies, elapsed, { failed: failures });
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
 * The API's memory in MB from its /metrics (prom-client's default series, behind the API's metrics token): the V8 heap in use and
 * what V8 holds for it (their gap is heap kept after a burst of allocation, which RSS includes), and memory outside the heap (buffers).
 */
async function heapMegabytes(apiUrl: string, token: string): Promise<{ used: number; total: number; external: number } | null> {
  const exposition = await fetch(`${apiUrl}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5_000) })
    .then((response) => (response.ok ? response.text() : ''))
    .catch(() => '');
  const bytes = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(exposition)?.[1] ?? Number.NaN) / 1_048_576;
  const [used, total, external] = [bytes('nodejs_heap_size_used_bytes'), bytes('nodejs_heap_size_total_bytes'), bytes('nodejs_external_memory_bytes')];
  return [used, total, external].every(Number.isFinite) ? { used, total, external } : null;
}

function row(target: string, load: LoadResult, extra: Partial<ResultRow> = {}): ResultRow {
  return { ...load, scenario: NAME, target, ratio: null, goal: null, verdict: null, ...extra };
}

/** One healthy signature.created endpoint for the hot petition's owner; returns a function that removes it. */
async function subscribe(client: pg.Client, ownerId: string, url: string): Promise<() => Promise<void>> {
  const sealed = benchSecretBox().seal(generateSigningSecret());
  const endpoint = await client.query<{ id: string }>(
    `INSERT INTO webhook_endpoints (user_id, url, events, secret_ciphertext) VALUES ($1, $2, ARRAY['signature.created'], $3) RETURNING id`,
    [ownerId, url, sealed],
  );
  return async () => {
    await client.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpoint.rows[0]!.id]);
  };
}

type Rounds = {
  hot: LoadResult;
  spread: LoadResult;
  subscribed: LoadResult;
  bare: LoadResult;
  keepUp: KeepUp;
  rssMb: number | null;
  heapNote: string;
};

/** The worker the next row needs: production's for rows without a subscriber, one that may call loopback for the subscribed row. */
function workerSwitch(env: BenchEnvironment, stops: (() => Promise<void>)[]) {
  const taskQueue = `bench-signing-${randomUUID().slice(0, 8)}`;
  let current: { child: PrefixedChild; production: boolean } | undefined;
  stops.push(async () => {
    if (current) await stopRallyWorker(current.child);
  });
  return async (production: boolean): Promise<void> => {
    if (current?.production === production) return;
    if (current) await stopRallyWorker(current.child);
    current = undefined;
    current = { child: await startRallyWorker(env, taskQueue, { production }), production };
  };
}

/** A bare node:http server answering like GET /v1, metered as `baseline`: what serving a request costs Node itself. */
async function startBare(env: BenchEnvironment, stops: (() => Promise<void>)[]) {
  const bare = await startBaselineServer({ name: 'bare' }, env.log);
  env.meter.register('baseline', bare.pid);
  stops.push(async () => {
    env.meter.unregister(bare.pid);
    await bare.stop();
  });
  return bare;
}

/**
 * The interleaved rounds through one API process, with a worker delivering to a local receiver.
 * Three interleaved rounds of (a) one hot petition, (b) 10,000 petitions in turn, (c) the same hot petition
 * while its owner has one healthy signature.created webhook endpoint, whose deliveries are then awaited
 * (keep-up, event → receipt, losses, duplicates; this worker delivers to the receiver on loopback, so it runs
 * in development mode), and (d) a bare node:http server, the reference for the API's CPU per request. Every
 * request is a different user with their own access token, 50 clients sending from 10,000 client addresses a
 * row (address-load.ts); the worker runs with NODE_ENV=production and the prepared workflow bundle. The API
 * under test is a second API process in production mode with production's rate limits (per address, too: the
 * load comes from many addresses), beside the embedded identity provider that publishes the key the minted
 * tokens are signed with. Only the hard block and domain ceilings stay off (environment.ts): every minted
 * signer has an address at one email domain, which no crowd has.
 */
async function signingRounds(env: BenchEnvironment, setup: pg.Client, chosen: Targets, stops: (() => Promise<void>)[]): Promise<Rounds> {
  const idpPort = String(await freePort());
  // Production mode, as the API's hot path is built for it (responses written by the compiled serializer, prepared rows unparsed).
  const metricsToken = randomBytes(32).toString('hex');
  const production = { ...productionServiceEnv(), RALLY_METRICS_TOKEN: metricsToken };
  const api = await startExtraApi(env, { RALLY_IDP_PORT: idpPort, OIDC_ISSUER: '', ...PRODUCTION_RATE_LIMITS, ...production }, SIGNING_API);
  stops.push(api.stop);
  const idp = await startIdentityProvider(api.serviceEnv, env.log);
  stops.push(idp.stop);
  const receiver = await startReceiver();
  stops.push(receiver.close);
  const useWorker = workerSwitch(env, stops);
  const bare = await startBare(env, stops);
  // The minting command refuses production (it makes users with tokens); it mints with this API's database and keys.
  const pool = createSignerPool({ ...api.serviceEnv, NODE_ENV: 'development' }, env.log);
  const hot = [chosen.hot.id];
  // A fresh API process is cold (JIT, key sets, pools): it first signs other spread petitions.
  await useWorker(true);
  await measureSigning(env, api, pool, 'API sign, warming the process up', chosen.spread, SPREAD_PETITIONS / 2);
  const runs = { hot: [] as LoadResult[], spread: [] as LoadResult[], subscribed: [] as LoadResult[], bare: [] as LoadResult[], keepUp: [] as KeepUp[] };
  for (let round = 1; round <= ROUNDS; round += 1) {
    await useWorker(true);
    runs.hot.push(await measureSigning(env, api, pool, `API sign, hot petition (round ${round}/${ROUNDS})`, hot));
    runs.spread.push(await measureSigning(env, api, pool, `API sign, ${SPREAD_PETITIONS} petitions (round ${round}/${ROUNDS})`, chosen.spread));
    await useWorker(false);
    const unsubscribe = await subscribe(setup, chosen.hot.ownerId, receiver.url('/crm'));
    try {
      const since = await outboxPosition(setup);
      runs.subscribed.push(await measureSigning(env, api, pool, `API sign, hot petition, 1 webhook subscribed (round ${round}/${ROUNDS})`, hot));
      const keepUp = await deliveriesSince(setup, receiver, chosen.hot.id, since);
      env.log(`${NAME}: ${keepUp.delivered} of ${keepUp.events} deliveries, ${Math.round(keepUp.rate)}/s, p99 ${Math.round(keepUp.p99Ms)} ms`);
      runs.keepUp.push(keepUp);
    } finally {
      await unsubscribe();
    }
    const warmupSec = round === 1 ? env.load.warmupSec : 0;
    runs.bare.push(await measureLoad(`bare node:http (round ${round}/${ROUNDS})`, `${bare.url}/v1`, { ...env.load, warmupSec }, env.log));
  }
  const rssMb = await residentMegabytes(api.pid);
  const heap = await heapMegabytes(api.url, metricsToken);
  return {
    hot: combineRounds(runs.hot),
    spread: combineRounds(runs.spread),
    subscribed: combineRounds(runs.subscribed),
    bare: combineRounds(runs.bare),
    keepUp: combineKeepUps(runs.keepUp),
    rssMb,
    heapNote: heap ? ` (V8 heap: ${Math.round(heap.used)} MB in use of ${Math.round(heap.total)} MB held; outside it: ${Math.round(heap.external)} MB)` : '',
  };
}

// (e) The API's statements for one signature in a tight `pg` loop (petitionFactsStatement and
// signBatchStatement of core/signatures/, imported, so they cannot drift), and (f) pgbench's insert + count
// transaction, the reference for PostgreSQL's CPU per signature.
async function rawRows(env: BenchEnvironment, setup: pg.Client, chosen: Targets, stops: (() => Promise<void>)[]) {
  const clients = await Promise.all(
    Array.from({ length: env.load.connections }, async () => {
      const client = new pg.Client({ connectionString: env.databaseUrl });
      await client.connect();
      stops.push(() => client.end());
      return client;
    }),
  );
  const users: string[] = [];
  const hot = await measureRaw(env, setup, clients, users, 'raw pg loop, hot petition', () => chosen.hot.id);
  const spread = await measureRaw(
    env,
    setup,
    clients,
    users,
    `raw pg loop, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`,
    (index) => chosen.spread[index % SPREAD_PETITIONS]!,
  );
  return { hot, spread };
}

const NO_LOAD: LoadResult = { requestsPerSecond: 0, p50Ms: 0, p99Ms: 0, errors: 0, timeouts: 0, non2xx: 0, requests: 0, durationSec: 0 };

export const scenario: Scenario = {
  name: NAME,
  goal:
    `POST /v1/petitions/{id}/signatures (a new user each, a worker running) on 1 hot petition, on ` +
    `${SPREAD_PETITIONS.toLocaleString('en-US')}, and on the hot one with a webhook subscriber: hot ≥ ${MIN_RATE.toLocaleString('en-US')}/s with ` +
    `p99 < ${MAX_P99_MS} ms, hot ≥ ${MIN_HOT_TO_SPREAD.toFixed(2)} × spread, subscribed ≥ ${MIN_SUBSCRIBED_TO_BARE.toFixed(2)} × hot, ` +
    `deliveries keep up (≥ ${MIN_KEEP_UP}, p99 < ${MAX_DELIVERY_P99_MS} ms), ` +
    `CPU per signature of PostgreSQL (beside pgbench's), the API (beside bare node:http's) and the worker, no statement per request outside ` +
    `its batch, few rate_limit_buckets rows, API RSS ≤ ${MAX_RSS_MB} MB`,
  async run(env): Promise<ResultRow[]> {
    await ensureSeeded(env.databaseUrl, env.log);
    const setup = new pg.Client({ connectionString: env.databaseUrl });
    await setup.connect();
    const stops: (() => Promise<void>)[] = [];
    try {
      const chosen = await pickTargets(setup);
      env.log(
        `${NAME}: hot petition ${chosen.hot.slug} (${chosen.hot.signatures.toLocaleString('en-US')} ` +
          `signatures); spread over ${chosen.spread.length.toLocaleString('en-US')} petitions`,
      );
      const { hot, spread, subscribed, bare, keepUp, rssMb, heapNote } = await signingRounds(env, setup, chosen, stops);
      for (const stop of stops.splice(0).reverse()) await stop();
      const raw = await rawRows(env, setup, chosen, stops);
      const pgbench = await measurePgbench(env, env.load.durationSec);

      const ratio = (a: LoadResult, b: LoadResult) => (b.requestsPerSecond > 0 ? a.requestsPerSecond / b.requestsPerSecond : 0);
      const keepUpRatio = subscribed.requestsPerSecond > 0 ? keepUp.rate / subscribed.requestsPerSecond : 0;
      const deliveries: LoadResult = {
        ...NO_LOAD,
        requestsPerSecond: keepUp.rate,
        p50Ms: keepUp.p50Ms,
        p99Ms: keepUp.p99Ms,
        requests: keepUp.delivered,
        durationSec: keepUp.seconds,
      };
      const memory: LoadResult = { ...NO_LOAD, requests: hot.requests + spread.requests };
      return [
        row('API sign, hot petition', hot, {
          ratio: hot.requestsPerSecond / MIN_RATE,
          goal: `≥ ${MIN_RATE.toLocaleString('en-US')}/s, p99 < ${MAX_P99_MS} ms`,
          ...judge(
            [
              check('signatures/s', hot.requestsPerSecond, `≥ ${MIN_RATE}`, hot.requestsPerSecond >= MIN_RATE),
              check('p99 ms', hot.p99Ms, `< ${MAX_P99_MS}`, hot.p99Ms < MAX_P99_MS),
            ],
            hot,
          ),
        }),
        row(`API sign, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, spread, {
          ratio: spread.requestsPerSecond / MIN_RATE,
          goal: `≥ ${MIN_RATE.toLocaleString('en-US')}/s`,
          verdict: verdictFor(spread.requestsPerSecond >= MIN_RATE, spread),
        }),
        row('API sign, hot ÷ spread', hot, {
          ratio: ratio(hot, spread),
          goal: `≥ ${MIN_HOT_TO_SPREAD.toFixed(2)}`,
          verdict: verdictFor(ratio(hot, spread) >= MIN_HOT_TO_SPREAD, hot, spread),
        }),
        row('API sign, hot petition, 1 signature.created webhook subscribed; ratio = ÷ hot without', subscribed, {
          ratio: ratio(subscribed, hot),
          goal: `≥ ${MIN_SUBSCRIBED_TO_BARE.toFixed(2)}`,
          verdict: verdictFor(ratio(subscribed, hot) >= MIN_SUBSCRIBED_TO_BARE, subscribed, hot),
        }),
        row(`webhook deliveries while signing: ${keepUp.delivered} of ${keepUp.events}; ratio = keep-up (deliveries/s ÷ signatures/s)`, deliveries, {
          ratio: keepUpRatio,
          goal: `≥ ${MIN_KEEP_UP}, p99 < ${MAX_DELIVERY_P99_MS} ms, none lost`,
          ...judge(
            [
              check('keep-up', keepUpRatio, `≥ ${MIN_KEEP_UP}`, keepUpRatio >= MIN_KEEP_UP),
              check('p99 event→receipt ms', keepUp.p99Ms, `< ${MAX_DELIVERY_P99_MS}`, keepUp.p99Ms < MAX_DELIVERY_P99_MS),
              check('lost', keepUp.lost, '= 0', keepUp.lost === 0),
              check('events under a second delivery id', keepUp.duplicates, '= 0', keepUp.duplicates === 0),
            ],
            subscribed,
          ),
        }),
        ...signingCostRows({ scenario: NAME, hot, pgbench, bare, apiName: SIGNING_API }),
        row('API sign, hot ÷ raw pg loop (same statements, same concurrency)', hot, {
          ratio: ratio(hot, raw.hot),
          goal: `≥ ${MIN_API_TO_RAW.toFixed(2)}`,
          verdict: verdictFor(ratio(hot, raw.hot) >= MIN_API_TO_RAW, hot, raw.hot),
        }),
        row(`API RSS after signing: ${rssMb === null ? 'unknown' : `${Math.round(rssMb)} MB`}${heapNote}`, memory, {
          ratio: rssMb === null ? null : rssMb / MAX_RSS_MB,
          goal: `≤ ${MAX_RSS_MB} MB`,
          ...(rssMb === null ? { verdict: 'INVALID' as const } : judge([check('API RSS MB', rssMb, `≤ ${MAX_RSS_MB}`, rssMb <= MAX_RSS_MB)])),
        }),
        row('bare node:http GET /v1 (reference for the API CPU per request)', bare),
        row('raw pg loop, hot petition', raw.hot),
        row(`raw pg loop, ${SPREAD_PETITIONS.toLocaleString('en-US')} petitions`, raw.spread),
        ...(pgbench
          ? [
              row('pgbench: insert + hot-row count, transactions/s', {
                ...NO_LOAD,
                requestsPerSecond: pgbench.tps,
                p50Ms: pgbench.latencyMs,
                requests: pgbench.transactions,
                durationSec: env.load.durationSec,
                ...(pgbench.cost ? { cost: pgbench.cost } : {}),
              }),
            ]
          : []),
      ];
    } finally {
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => env.log(`${NAME}: could not stop: ${(error as Error).message}`));
      await setup.end();
    }
  },
};
