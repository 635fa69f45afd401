// /v1/search: full-text petition search with facets, and title suggestions. Public. Both are
// bounded by RALLY_SEARCH_TIMEOUT: a search that trips it answers 503 search-unavailable.
import { DomainError, invalidField } from '../../core/errors/domain-error.ts';
import { toPetitionSummary } from '../../core/petitions/presenter.ts';
import { SEARCH_UNAVAILABLE } from '../../core/search/bounded.ts';
import { isIsoCountryCode } from '../../core/search/countries.ts';
import type { PetitionSearch } from '../../core/search/search-cache.ts';
import type { SearchPage } from '../../core/search/petition-search.ts';
import type { Suggestion } from '../../core/search/suggest.ts';
import { notModified } from '../http/conditional.ts';
import { sendData, sendList, type Pagination } from '../http/context.ts';
import { presentedOnce } from '../http/memoized-answers.ts';
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
      throw new RallyError('search-unavailable', error.message, {
        code: SEARCH_UNAVAILABLE,
        headers: { 'Retry-After': String(error.retryAfterSeconds ?? 5) },
        cause: error,
      });
    }
    throw error;
  }
}

export function createSearchRoutes(deps: SearchRouteDependencies): AnyRouteSpec[] {
  const tag = 'Search';
  // The same answer object is handed out while it is cached (search-cache.ts): presented once per object.
  const presentPage = presentedOnce<SearchPage, { summaries: ReturnType<typeof toPetitionSummary>[]; pagination: Pagination; facets: SearchPage['facets'] }>();
  const presentSuggestions = presentedOnce<readonly Suggestion[], readonly Suggestion[]>();
  return [
    defineRoute({
      method: 'get',
      path: '/v1/search/petitions',
      operationId: 'searchPetitions',
      tag,
      auth: 'none',
      summary: 'Search petitions',
      description: 'Search publicly listed petitions, with facet counts.',
      query: PetitionSearchQuery,
      responses: {
        200: { description: 'A page of matches, best first', schema: PetitionSearchResult },
        304: { description: 'Not modified (If-None-Match matched the ETag of the current answer)' },
        503: { description: 'Search unavailable (timed out); retry after Retry-After seconds' },
      },
      async handler(ctx, { query }) {
        if (query.country !== undefined && !isIsoCountryCode(query.country))
          throw invalidField('country', 'invalid_country', 'must be an ISO 3166-1 alpha-2 country code');
        const q = query.q?.trim() || undefined;
        const result = await unlessUnavailable(deps.search.search({ ...query, q, country: query.country?.toUpperCase() }));
        const { data, etag } = presentPage(result, () => ({
          summaries: result.rows.map((row) => toPetitionSummary(row, undefined)),
          pagination: { next_cursor: result.nextCursor, has_more: result.hasMore },
          facets: result.facets,
        }));
        if (notModified(ctx, etag)) return;
        sendList(ctx, data.summaries, data.pagination, { facets: data.facets });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/search/suggest',
      operationId: 'suggestPetitions',
      tag,
      auth: 'none',
      summary: 'Suggest petition titles',
      description: 'Petition titles for a typed prefix (typo-tolerant).',
      query: SuggestQuery,
      responses: {
        200: { description: 'Suggestions, closest first', schema: SuggestResult },
        304: { description: 'Not modified (If-None-Match matched the ETag of the current answer)' },
        503: { description: 'Search unavailable (timed out)' },
      },
      async handler(ctx, { query }) {
        const prefix = query.q.trim();
        if (prefix.length < 2) throw invalidField('q', 'too_small', 'must have at least 2 characters besides spaces');
        const suggestions = await unlessUnavailable(deps.search.suggest(prefix, query.limit));
        const { data, etag } = presentSuggestions(suggestions, () => suggestions.map((suggestion) => ({ ...suggestion })));
        if (notModified(ctx, etag)) return;
        sendData(ctx, data);
      },
    }),
  ];
}
