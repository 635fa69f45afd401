// Reading petitions on the seeded database (100,000 petitions, 1,000,000 signatures): GET /v1/petitions
// first page and 500th page (default sort and page size; the 500th page's cursor is found by walking
// the list through the API), and GET /v1/petitions/{slug}. Issue 4 asks for req/s and p99; the
// one goal checked is the keyset pagination's promise (core/petitions/listing.ts): page 500 costs
// what page 1 costs, i.e. keeps at least 0.80 of its rate.
import pg from 'pg';
import { measureLoad } from '../load.ts';
import { verdictFor, type BenchEnvironment, type ResultRow, type Scenario } from '../scenario.ts';
import { ensureSeeded, SEED_ISSUER } from '../seed.ts';

const NAME = 'petition-reads';
const PAGE = 500;
const PAGE_SIZE = 20; // the API's default limit
const WALK_LIMIT = 100; // the API's largest page, to reach page 500 in few requests
const MIN_DEEP_RATIO = 0.8;

type ListPage = { data?: unknown[]; pagination?: { next_cursor: string | null; has_more: boolean } };

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = (await response.json()) as T;
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** The cursor that `GET /v1/petitions` hands out after (page - 1) × PAGE_SIZE rows, by walking the list. */
async function cursorOfPage(env: BenchEnvironment, page: number): Promise<string> {
  let remaining = (page - 1) * PAGE_SIZE;
  let cursor: string | undefined;
  let requests = 0;
  while (remaining > 0) {
    const limit = Math.min(WALK_LIMIT, remaining);
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const body = await getJson<ListPage>(`${env.apiUrl}/v1/petitions?${query}`);
    requests += 1;
    const next = body.pagination?.next_cursor;
    if (!next || (body.data?.length ?? 0) < limit) throw new Error(`GET /v1/petitions ends before page ${page}: the bench database lists fewer than ${page * PAGE_SIZE} petitions`);
    cursor = next;
    remaining -= limit;
  }
  env.log(`${NAME}: cursor of page ${page} found in ${requests} requests`);
  return cursor!;
}

async function pickSlug(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A well-signed public petition, but not the hottest (the signing scenario writes to that one).
    const result = await client.query<{ slug: string }>(`
      SELECT p.slug FROM petitions p JOIN users u ON u.id = p.creator_id
      WHERE u.identity_issuer = $1 AND p.status = 'active' AND p.visibility = 'public' AND p.deleted_at IS NULL
      ORDER BY p.signature_count DESC, p.id OFFSET 100 LIMIT 1`, [SEED_ISSUER]);
    const slug = result.rows[0]?.slug;
    if (!slug) throw new Error('the seeded data has no active public petition');
    return slug;
  } finally {
    await client.end();
  }
}

export const scenario: Scenario = {
  name: NAME,
  goal: `GET /v1/petitions (page 1 and page ${PAGE}) and GET /v1/petitions/{slug} on 100,000 petitions: req/s and p99; page ${PAGE} keeps ≥ ${MIN_DEEP_RATIO.toFixed(2)} × page 1`,
  async run(env): Promise<ResultRow[]> {
    await ensureSeeded(env.databaseUrl, env.log);
    const slug = await pickSlug(env.databaseUrl);
    await getJson(`${env.apiUrl}/v1/petitions/${slug}`);
    const deepCursor = await cursorOfPage(env, PAGE);

    const first = await measureLoad('GET /v1/petitions (page 1)', `${env.apiUrl}/v1/petitions`, env.load, env.log);
    const deep = await measureLoad(`GET /v1/petitions (page ${PAGE})`, `${env.apiUrl}/v1/petitions?cursor=${deepCursor}`, env.load, env.log);
    const single = await measureLoad('GET /v1/petitions/{slug}', `${env.apiUrl}/v1/petitions/${slug}`, env.load, env.log);
    const ratio = first.requestsPerSecond > 0 ? deep.requestsPerSecond / first.requestsPerSecond : 0;
    return [
      { ...first, scenario: NAME, target: 'GET /v1/petitions, page 1', ratio: null, goal: null, verdict: verdictFor(true, first) === 'INVALID' ? 'INVALID' : null },
      { ...deep, scenario: NAME, target: `GET /v1/petitions, page ${PAGE}`, ratio, goal: `≥ ${MIN_DEEP_RATIO.toFixed(2)} × page 1`, verdict: verdictFor(ratio >= MIN_DEEP_RATIO, deep, first) },
      { ...single, scenario: NAME, target: 'GET /v1/petitions/{slug}', ratio: null, goal: null, verdict: verdictFor(true, single) === 'INVALID' ? 'INVALID' : null },
    ];
  },
};
