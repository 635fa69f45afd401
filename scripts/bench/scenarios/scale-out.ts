// Scale-out (issue 16): two API processes and two workers on the same PostgreSQL and Temporal, as replicas run behind a load balancer. Two rows: reads (an API
// process per core serves at least 1.60 × one, issue 28) and counts (signatures through both APIs add up exactly).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { startExtraApi, type ExtraApi } from '../environment.ts';
import { ROUNDS } from '../interleave.ts';
import { measureLoad, type LoadResult } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { startSignStream, startSigningApi } from '../sign-stream.ts';
import { mintSigners } from '../signers.ts';
import { startRallyWorker, stopRallyWorker } from '../webhook-kit.ts';
import { ensureSeeded } from '../seed.ts';

const NAME = 'scale-out';
// Issue 28: with an API process on every core of this 2-core machine, reads reach 1.6 × one process.
const MIN_SCALE = 1.6;
const SIGNATURES = 2_000;
const SIGN_RATE = 400;
const SETTLE_MS = 15_000;

async function createPetition(client: pg.Client): Promise<{ id: string; slug: string }> {
  const tag = randomUUID().slice(0, 8);
  const user = await client.query<{ id: string }>(
    `INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
    VALUES ('bench', $1, $2, 'Scale-out owner', $3) RETURNING id`,
    [tag, `scale-${tag}@example.test`, `scale-${tag}`],
  );
  const petition = await client.query<{ id: string; slug: string }>(
    `INSERT INTO petitions (slug, title, description, creator_id, status, published_at)
    VALUES ($1, 'Scale-out benchmark petition', $2, $3, 'active', now()) RETURNING id, slug`,
    [`scale-${tag}`, 'x'.repeat(60), user.rows[0]!.id],
  );
  return petition.rows[0]!;
}

type Counts = { table: number; shards: number; events: number; servedA: number; servedB: number };

async function countsOf(client: pg.Client, petitionId: string, slug: string, apis: readonly string[]): Promise<Counts> {
  const stored = await client.query<{ table: string; shards: string; events: string }>(
    `SELECT
      (SELECT count(*) FROM signatures WHERE petition_id = $1) AS table,
      (SELECT COALESCE(sum(count), 0) FROM signature_counters WHERE petition_id = $1) AS shards,
      (SELECT count(*) FROM events WHERE petition_id = $1 AND type = 'signature.created') AS events`,
    [petitionId],
  );
  const served = await Promise.all(
    apis.map(async (url) => {
      const body = (await (await fetch(`${url}/v1/petitions/${slug}`, { signal: AbortSignal.timeout(5_000) })).json()) as { data: { signature_count: number } };
      return body.data.signature_count;
    }),
  );
  const row = stored.rows[0]!;
  return { table: Number(row.table), shards: Number(row.shards), events: Number(row.events), servedA: served[0]!, servedB: served[1]! };
}

const sum = (a: LoadResult, b: LoadResult): LoadResult => ({
  requestsPerSecond: a.requestsPerSecond + b.requestsPerSecond,
  p50Ms: Math.max(a.p50Ms, b.p50Ms),
  p99Ms: Math.max(a.p99Ms, b.p99Ms),
  errors: a.errors + b.errors,
  timeouts: a.timeouts + b.timeouts,
  non2xx: a.non2xx + b.non2xx,
  requests: a.requests + b.requests,
  durationSec: Math.max(a.durationSec, b.durationSec),
  // The two windows ran at once over the same processes: either one's cost is the pair's.
  ...(a.cost ? { cost: a.cost } : {}),
});
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) / 2)]!;

// GET /v1/petitions/{slug} on one API process, then on both at once (each driven by its own load generator with
// half the connections, the sum reported), in interleaved rounds.
async function measureReads(env: BenchEnvironment, urls: readonly string[], slug: string): Promise<ResultRow[]> {
  const path = `/v1/petitions/${slug}`;
  const half = { ...env.load, connections: Math.ceil(env.load.connections / 2) };
  const one: LoadResult[] = [];
  const two: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const warm = round === 0 ? env.load.warmupSec : 0;
    one.push(await measureLoad(`1 API: GET ${path} (round ${round + 1})`, `${urls[0]}${path}`, { ...env.load, warmupSec: warm }, env.log));
    const [a, b] = await Promise.all(
      urls.map((url, index) =>
        measureLoad(`2 APIs, API ${index + 1}: GET ${path} (round ${round + 1})`, `${url}${path}`, { ...half, warmupSec: warm }, env.log),
      ),
    );
    two.push(sum(a!, b!));
  }
  const pick = (results: LoadResult[]): LoadResult => ({
    ...results.find((result) => result.requestsPerSecond === median(results.map((r) => r.requestsPerSecond)))!,
    samples: results.map((r) => Math.round(r.requestsPerSecond)),
  });
  const single = pick(one);
  const both = pick(two);
  const ratio = single.requestsPerSecond > 0 ? both.requestsPerSecond / single.requestsPerSecond : 0;
  return [
    {
      ...both,
      scenario: NAME,
      target: 'GET /v1/petitions/{slug}, 2 API processes',
      ratio,
      goal: `≥ ${MIN_SCALE.toFixed(2)} × 1 API`,
      verdict: verdictFor(ratio >= MIN_SCALE, both, single),
    },
    { ...single, scenario: NAME, target: 'GET /v1/petitions/{slug}, 1 API process', ratio: null, goal: null, verdict: null },
  ];
}

// A fresh petition signed through both processes in turn while both workers run; once the requests are
// answered, the signatures table, the counter shards, the signature.created events in the outbox and what each
// API process serves must all equal the number of 201 answers, exactly.
async function measureCounts(env: BenchEnvironment, client: pg.Client, urls: readonly string[], signingEnv: NodeJS.ProcessEnv): Promise<ResultRow> {
  const petition = await createPetition(client);
  const signers = await mintSigners(signingEnv, SIGNATURES, env.log);
  const began = performance.now();
  const stream = startSignStream(urls, petition.id, signers, SIGN_RATE);
  // Every signer signs once; three times the planned time at most.
  await Promise.race([stream.done, sleep((SIGNATURES / SIGN_RATE) * 3000)]);
  const outcome = await stream.stop();
  // Both processes serve the count from memory; give the feed and the once-a-second re-read time to settle.
  let counts = await countsOf(client, petition.id, petition.slug, urls);
  const deadline = Date.now() + SETTLE_MS;
  while (Date.now() < deadline && [counts.table, counts.shards, counts.events, counts.servedA, counts.servedB].some((value) => value !== outcome.signed)) {
    await sleep(250);
    counts = await countsOf(client, petition.id, petition.slug, urls);
  }
  const exact = outcome.failed === 0 && [counts.table, counts.shards, counts.events, counts.servedA, counts.servedB].every((value) => value === outcome.signed);
  const seconds = (performance.now() - began) / 1000;
  env.log(
    `${NAME}: ${outcome.signed} signatures answered 201 (${outcome.failed} failed); table ` +
      `${counts.table}, shards ${counts.shards}, events ${counts.events}, served ${counts.servedA} / ` +
      `${counts.servedB}`,
  );
  return {
    requestsPerSecond: outcome.signed / seconds,
    p50Ms: 0,
    p99Ms: 0,
    errors: outcome.failed,
    timeouts: 0,
    non2xx: 0,
    requests: outcome.sent,
    durationSec: seconds,
    scenario: NAME,
    target:
      `counts after ${outcome.signed} signatures via 2 APIs: table ${counts.table}, shards ` +
      `${counts.shards}, events ${counts.events}, served ${counts.servedA} / ${counts.servedB}`,
    ratio: outcome.signed > 0 ? Math.min(counts.table, counts.shards, counts.events, counts.servedA, counts.servedB) / outcome.signed : 0,
    goal: 'all = 201s',
    verdict: outcome.signed === 0 ? 'INVALID' : exact ? 'PASS' : 'MISS',
  };
}

export const scenario: Scenario = {
  name: NAME,
  goal:
    `2 API processes + 2 workers on one PostgreSQL and Temporal: reads reach ≥ ${MIN_SCALE.toFixed(2)} × ` +
    `one process, and counts stay exact after ${SIGNATURES.toLocaleString('en-US')} signatures through ` +
    `both`,
  async run(env): Promise<ResultRow[]> {
    // The reads go to the most-signed public petition: the seed's, so the scenario also runs alone.
    await ensureSeeded(env.databaseUrl, env.log);
    const client = new pg.Client({ connectionString: env.databaseUrl });
    await client.connect();
    const first = await startSigningApi(env, 'api-1');
    let second: ExtraApi | undefined;
    const workers: Awaited<ReturnType<typeof startRallyWorker>>[] = [];
    try {
      const { RALLY_IDP_PORT, PUBLIC_URL, RALLY_SIGN_LIMIT_PER_HOUR } = first.api.serviceEnv;
      second = await startExtraApi(env, { RALLY_IDP_PORT, OIDC_ISSUER: '', PUBLIC_URL, RALLY_SIGN_LIMIT_PER_HOUR }, 'api-2');
      const taskQueue = env.serviceEnv.RALLY_TASK_QUEUE ?? 'rally';
      for (let index = 0; index < 2; index += 1) workers.push(await startRallyWorker(env, taskQueue));
      const urls = [first.api.url, second.url];
      const hot = await client.query<{ slug: string }>(
        `SELECT slug FROM petitions WHERE status = 'active' AND visibility = 'public' AND deleted_at IS NULL ORDER BY signature_count DESC, id LIMIT 1`,
      );
      const reads = await measureReads(env, urls, hot.rows[0]!.slug);
      return [...reads, await measureCounts(env, client, urls, first.api.serviceEnv)];
    } finally {
      for (const worker of workers) await stopRallyWorker(worker);
      await second?.stop();
      await first.stop();
      await client.end();
    }
  },
};
