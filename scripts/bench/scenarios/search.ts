// Search on the seeded database (100,000 petitions): GET /v1/search/petitions for a word that
// matches one petition in twenty (with its facets), and GET /v1/search/suggest for a prefix with
// one wrong letter. Issue 14's goals at the bench's concurrency: search p99 < 50 ms, suggest p99 < 20 ms.
import { measureLoad } from '../load.ts';
import { verdictFor, type ResultRow, type Scenario } from '../scenario.ts';
import { ensureSeeded } from '../seed.ts';

const NAME = 'search';
const SEARCH_P99_MS = 50;
const SUGGEST_P99_MS = 20;
// "wetlands" is one of the seed's twenty topics; "wetlamds" has one wrong letter.
const SEARCH_PATH = '/v1/search/petitions?q=protect%20wetlands&sort=relevance';
const SUGGEST_PATH = '/v1/search/suggest?q=wetlamds';

export const scenario: Scenario = {
  name: NAME,
  goal: `GET /v1/search/petitions p99 < ${SEARCH_P99_MS} ms and GET /v1/search/suggest p99 < ${SUGGEST_P99_MS} ms on 100,000 petitions`,
  async run(env): Promise<ResultRow[]> {
    await ensureSeeded(env.databaseUrl, env.log);
    for (const path of [SEARCH_PATH, SUGGEST_PATH]) {
      const response = await fetch(`${env.apiUrl}${path}`, { signal: AbortSignal.timeout(10_000) });
      const body = (await response.json()) as { data?: unknown[] };
      if (response.status !== 200 || !body.data?.length) throw new Error(`GET ${path} answered ${response.status} with ${body.data?.length ?? 0} results`);
    }
    const search = await measureLoad('GET /v1/search/petitions', `${env.apiUrl}${SEARCH_PATH}`, env.load, env.log);
    const suggest = await measureLoad('GET /v1/search/suggest', `${env.apiUrl}${SUGGEST_PATH}`, env.load, env.log);
    return [
      { ...search, scenario: NAME, target: 'GET /v1/search/petitions', ratio: null, goal: `p99 < ${SEARCH_P99_MS} ms`, verdict: verdictFor(search.p99Ms < SEARCH_P99_MS, search) },
      { ...suggest, scenario: NAME, target: 'GET /v1/search/suggest', ratio: null, goal: `p99 < ${SUGGEST_P99_MS} ms`, verdict: verdictFor(suggest.p99Ms < SUGGEST_P99_MS, suggest) },
    ];
  },
};
