// /v1/search: full-text petition search with facets, and title suggestions. Public. Both are
// bounded by RALLY_SEARCH_TIMEOUT: a search that trips it answers 503 search-unavailable.
import { DomainError, invalidField } from '../../core/errors/domain-error.ts';
import { toPetitionSummary } from '../../core/petitions/presenter.ts';
import { SEARCH_UNAVAILABLE } from '../../core/search/bounded.ts';
import { isIsoCountryCode } from '../../core/search/countries.ts';
import type { PetitionSearch } from '../../core/search/search-cache.ts';
import { sendData, sendList } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { PetitionSearchQuery, PetitionSearchResult, SuggestQuery, SuggestResult } from './schemas.ts';

export type SearchRouteDependencies = { search: PetitionSearch };

/** The search module's "unavailable" becomes the spec's own 503 problem, with Retry-After. */
async function unlessUnavailable<T>(search: Promise<T>): Promise<T> {
  try {
    return await search;
  } catch (error) {
    if (error instanceof DomainError && error.code === SEARCH_UNAVAILABLE) {
      throw new RallyError('search-unavailable', error.message, { code: SEARCH_UNAVAILABLE, headers: { 'Retry-After': String(error.retryAfterSeconds ?? 5) }, cause: error });
    }
    throw error;
  }
}

export function createSearchRoutes(deps: SearchRouteDependencies): AnyRouteSpec[] {
  const tag = 'Search';
  return [
    defineRoute({
      method: 'get', path: '/v1/search/petitions', operationId: 'searchPetitions', tag, auth: 'none',
      summary: 'Search publicly listed petitions, with facet counts',
      query: PetitionSearchQuery,
      responses: { 200: { description: 'A page of matches, best first', schema: PetitionSearchResult }, 503: { description: 'Search unavailable (timed out); retry after Retry-After seconds' } },
      async handler(ctx, { query }) {
        if (query.country !== undefined && !isIsoCountryCode(query.country)) throw invalidField('country', 'invalid_country', 'must be an ISO 3166-1 alpha-2 country code');
        const q = query.q?.trim() || undefined;
        const result = await unlessUnavailable(deps.search.search({ ...query, q, country: query.country?.toUpperCase() }));
        sendList(ctx, result.rows.map((row) => toPetitionSummary(row, undefined)), { next_cursor: result.nextCursor, has_more: result.hasMore }, { facets: result.facets });
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/search/suggest', operationId: 'suggestPetitions', tag, auth: 'none',
      summary: 'Petition titles for a typed prefix (typo-tolerant)',
      query: SuggestQuery,
      responses: { 200: { description: 'Suggestions, closest first', schema: SuggestResult }, 503: { description: 'Search unavailable (timed out)' } },
      async handler(ctx, { query }) {
        const prefix = query.q.trim();
        if (prefix.length < 2) throw invalidField('q', 'too_small', 'must have at least 2 characters besides spaces');
        sendData(ctx, await unlessUnavailable(deps.search.suggest(prefix, query.limit)));
      },
    }),
  ];
}
