// The WHERE conditions of a petition search, shared by the result page and its facet counts.
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';
import type { PubliclyListedStatus } from './publicly-listed.ts';

export const SEARCH_SORTS = ['relevance', 'recent', 'signatures', 'trending'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

/** A validated search request; `country` is an ISO 3166-1 alpha-2 code in capitals. */
export type PetitionSearchQuery = {
  q?: string;
  category?: string;
  country?: string;
  status?: PubliclyListedStatus;
  tag?: string;
  sort: SearchSort;
  cursor?: string;
  limit: number;
};

export type FacetName = 'status' | 'category' | 'country' | 'tag';

export function queryIn(config: 'english' | 'french' | 'simple', q: string) {
  return sql.fragment`websearch_to_tsquery(${`pg_catalog.${config}`}::regconfig, rally_search_fold(${q}))`;
}

/** The query parsed in the petition's own language: its stemming, its stop words. */
export function ownLanguageQuery(q: string): FragmentSqlToken {
  return sql.fragment`CASE p.search_config WHEN 'pg_catalog.english'::regconfig THEN ${queryIn('english', q)}
    WHEN 'pg_catalog.french'::regconfig THEN ${queryIn('french', q)} ELSE ${queryIn('simple', q)} END`;
}

/**
 * Whether a petition matches `q` in its own language. The OR of the three languages is what the
 * GIN index can answer; the own-language test then rechecks each candidate, so that an excluded
 * word (-word) is excluded in the petition's own stemming and not merely in some other one.
 */
export function textMatch(q: string | undefined): FragmentSqlToken {
  if (!q) return sql.fragment`TRUE`;
  return sql.fragment`((p.search_document @@ ${queryIn('english', q)} OR p.search_document @@
  ${queryIn('french', q)} OR p.search_document @@ ${queryIn('simple', q)})
    AND p.search_document @@ ${ownLanguageQuery(q)})`;
}

/** The filter conditions of a query, leaving out one facet's own filter when asked. */
export function filterConditions(query: PetitionSearchQuery, except?: FacetName): Record<FacetName, FragmentSqlToken> {
  const always = sql.fragment`TRUE`;
  return {
    status: query.status && except !== 'status' ? sql.fragment`p.status = ${query.status}` : always,
    category: query.category && except !== 'category' ? sql.fragment`p.category_id = ${query.category}::uuid` : always,
    country: query.country && except !== 'country' ? sql.fragment`upper(p.location_country) = ${query.country}` : always,
    tag: query.tag && except !== 'tag' ? sql.fragment`p.tags @> ${sql.array([query.tag], 'text')}` : always,
  };
}
