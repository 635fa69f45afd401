// Reading petitions on the seeded database (100,000 petitions, 1,000,000 signatures), issue 16: GET /v1/petitions/{slug} as a visitor on the hottest petition
// while it is signed through a second API process (≥ 10,000 req/s, count at most 1 s behind), and GET /v1/petitions?limit=20 pages 1 and 500 (≥ 5,000 req/s
// each).
import pg from 'pg';
import { measureInterleaved } from '../interleave.ts';
import { measureLoad } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { ensureSeeded, SEED_ISSUER } from '../seed.ts';
import { mintSigners } from '../signers.ts';
import { startSignStream, startSigningApi } from '../sign-stream.ts';
import { startStalenessProbe } from '../staleness.ts';

const NAME = 'petition-reads';
const PAGE = 500;
const PAGE_SIZE = 20;
const WALK_LIMIT = 100; // the API's largest page, to reach page 500 in few requests
const MIN_SLUG_RATE = 10_000;
const MIN_LIST_RATE = 5_000;
const MAX_STALENESS_MS = 1_000;
/** Signatures a second on the hot petition while it is read: a steady stream, not a second benchmark. */
const SIGN_RATE = 200;

type ListPage = { data?: unknown[]; pagination?: { next_cursor: string | null; has_more: boolean } };

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = (await response.json()) as T;
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/**
 * The cursor that `GET /v1/petitions` hands out after (page - 1) × PAGE_SIZE rows, by walking the list.
 * Page 500's cursor is found by walking the list through the API; the list pages are read interleaved.
 */
async function cursorOfPage(env: BenchEnvironment, page: number): Promise<string> {
  let remaining = (page - 1) * PAGE_SIZE;
  let cursor: string | undefined;
  while (remaining > 0) {
    const limit = Math.min(WALK_LIMIT, remaining);
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const body = await getJson<ListPage>(`${env.apiUrl}/v1/petitions?${query}`);
    const next = body.pagination?.next_cursor;
    if (!next || (body.data?.length ?? 0) < limit)
      throw new Error(`GET /v1/petitions ends before page ${page}: the bench database lists fewer than ${page * PAGE_SIZE} petitions`);
    cursor = next;
    remaining -= limit;
  }
  return cursor!;
}

/** The most signed active public petition: the one a viral spike would be reading and signing. */
async function pickHotPetition(databaseUrl: string): Promise<{ id: string; slug: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ id: string; slug: string }>(
      `
      SELECT p.id, p.slug FROM petitions p JOIN users u ON u.id = p.creator_id
      WHERE u.identity_issuer = $1 AND p.status = 'active' AND p.visibility = 'public' AND p.deleted_at IS NULL
      ORDER BY p.signature_count DESC, p.id LIMIT 1`,
      [SEED_ISSUER],
    );
    const hot = result.rows[0];
    if (!hot) throw new Error('the seeded data has no active public petition');
    return hot;
  } finally {
    await client.end();
  }
}

// The hot petition is signed through a second API process (sign-stream.ts) meanwhile; staleness.ts measures how
// far the served count is behind the database during the run.
async function measureHotRead(env: BenchEnvironment): Promise<ResultRow[]> {
  const hot = await pickHotPetition(env.databaseUrl);
  const signing = await startSigningApi(env);
  try {
    const needed = Math.ceil(SIGN_RATE * (env.load.warmupSec + env.load.durationSec + 10));
    const signers = await mintSigners(signing.api.serviceEnv, needed, env.log);
    await getJson(`${env.apiUrl}/v1/petitions/${hot.slug}`);
    const stream = startSignStream([signing.api.url], hot.id, signers, SIGN_RATE);
    const probe = await startStalenessProbe(env.databaseUrl, env.apiUrl, hot.id, hot.slug);
    const read = await measureLoad('GET /v1/petitions/{slug} while signed', `${env.apiUrl}/v1/petitions/${hot.slug}`, env.load, env.log);
    const staleness = await probe.stop();
    const signed = await stream.stop();
    env.log(
      `${NAME}: ${signed.signed} signatures (${Math.round(signed.signed / signed.seconds)}/s, ${signed.failed} failed) during the reads; ` +
        `count staleness max ${staleness.maxMs} ms, p99 ${staleness.p99Ms} ms over ${staleness.samples} samples`,
    );
    const rate = `${Math.round(signed.signed / signed.seconds)} signatures/s`;
    const signingBroken = signed.failed > 0 || signed.signersLeft === 0 || staleness.samples === 0;
    return [
      {
        ...read,
        scenario: NAME,
        target: `GET /v1/petitions/{slug}, anonymous, hot petition signed at ${rate}`,
        ratio: null,
        goal: `≥ ${MIN_SLUG_RATE.toLocaleString('en-US')} req/s`,
        verdict: verdictFor(read.requestsPerSecond >= MIN_SLUG_RATE, read),
      },
      {
        ...read,
        scenario: NAME,
        target: `count staleness of those reads: max ${staleness.maxMs} ms, p99 ${staleness.p99Ms} ms (${staleness.samples} samples)`,
        ratio: staleness.maxMs / MAX_STALENESS_MS,
        goal: '≤ 1.00 × 1 s',
        verdict: signingBroken ? 'INVALID' : verdictFor(staleness.maxMs <= MAX_STALENESS_MS, read),
      },
    ];
  } finally {
    await signing.stop();
  }
}

export const scenario: Scenario = {
  name: NAME,
  goal:
    `GET /v1/petitions/{slug} of a petition being signed ≥ ${MIN_SLUG_RATE.toLocaleString('en-US')} req/s ` +
    `with its count ≤ 1 s behind; GET /v1/petitions?limit=${PAGE_SIZE} page 1 and page ${PAGE} ≥ ` +
    `${MIN_LIST_RATE.toLocaleString('en-US')} req/s each`,
  async run(env): Promise<ResultRow[]> {
    await ensureSeeded(env.databaseUrl, env.log);
    const deepCursor = await cursorOfPage(env, PAGE);
    const [first, deep] = await measureInterleaved(
      [
        { label: 'GET /v1/petitions (page 1)', url: `${env.apiUrl}/v1/petitions?limit=${PAGE_SIZE}` },
        { label: `GET /v1/petitions (page ${PAGE})`, url: `${env.apiUrl}/v1/petitions?limit=${PAGE_SIZE}&cursor=${deepCursor}` },
      ],
      env.load,
      env.log,
    );
    const goal = `≥ ${MIN_LIST_RATE.toLocaleString('en-US')} req/s`;
    return [
      ...(await measureHotRead(env)),
      {
        ...first!,
        scenario: NAME,
        target: `GET /v1/petitions?limit=${PAGE_SIZE}, page 1`,
        ratio: null,
        goal,
        verdict: verdictFor(first!.requestsPerSecond >= MIN_LIST_RATE, first!),
      },
      {
        ...deep!,
        scenario: NAME,
        target: `GET /v1/petitions?limit=${PAGE_SIZE}, page ${PAGE}`,
        ratio: null,
        goal,
        verdict: verdictFor(deep!.requestsPerSecond >= MIN_LIST_RATE, deep!),
      },
    ];
  },
};
