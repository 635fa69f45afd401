// Facet counts of a search (per status, category, country and top tag), each counted for the same query without its own filter, so a UI can show how many
// results picking another value would give. They come from the search's own match set (the `matches` CTE of petition-search.ts), in the statement that also
// picks the page, so the matches are found once.
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';
import { filterConditions, type FacetName, type PetitionSearchQuery } from './conditions.ts';

export type FacetValue = { value: string; count: number };
export type Facets = Record<'status' | 'category' | 'country' | 'tags', FacetValue[]>;
export type FacetRow = { facet: FacetName; value: string; count: number };

export const TOP_TAGS = 10;
const FACET_NAMES = ['status', 'category', 'country', 'tag'] as const;

const ok = (name: FacetName) => sql.identifier([`${name}_ok`]);
const otherFilters = (except: FacetName) => sql.join(FACET_NAMES.filter((name) => name !== except).map(ok), sql.fragment` AND `);

/** What each match must carry for the facets: its values, and whether it passes each filter. */
export function facetColumns(query: PetitionSearchQuery): FragmentSqlToken {
  const only = filterConditions(query);
  return sql.fragment`p.status, p.category_id, upper(p.location_country) AS country, p.tags,
    ${sql.join(
      FACET_NAMES.map((name) => sql.fragment`${only[name]} AS ${ok(name)}`),
      sql.fragment`, `,
    )}`;
}

/** Whether a match passes every filter (a `matches` column expression). */
export const PASSES_ALL_FILTERS = sql.join(FACET_NAMES.map(ok), sql.fragment` AND `);

/**
 * The CTE of the cells, to be listed after `matches`.
 * Status, category and country are first grouped into cells (one per combination of values and filter outcomes,
 * a few hundred at most), so each of those facets sums cells instead of scanning every match again.
 */
export const FACET_CELLS = sql.fragment`cells AS (
    SELECT status, category_id, country, status_ok, category_ok, country_ok, tag_ok, count(*)::int AS count
    FROM matches GROUP BY status, category_id, country, status_ok, category_ok, country_ok, tag_ok
  )`;

/**
 * A query of the rows (facet, value, count) of every facet, for a statement that has both CTEs.
 * Tags need a pass of their own; unnest in the select list (ProjectSet) costs a fraction of a per-match
 * unnest() function scan, which builds a tuplestore for every match.
 */
export const FACET_ROWS = sql.fragment`
  SELECT 'status' AS facet, status AS value, sum(count)::int AS count FROM cells WHERE ${otherFilters('status')} GROUP BY status
  UNION ALL
  SELECT 'category', category_id::text, sum(count)::int FROM cells WHERE ${otherFilters('category')} AND category_id IS NOT NULL GROUP BY category_id
  UNION ALL
  SELECT 'country', country, sum(count)::int FROM cells WHERE ${otherFilters('country')} AND country ~ '^[A-Z]{2}$' GROUP BY country
  UNION ALL
  (SELECT 'tag', tag, count(*)::int FROM (SELECT unnest(tags) AS tag FROM matches WHERE ${otherFilters('tag')}) AS tagged
    GROUP BY tag ORDER BY count(*) DESC, tag LIMIT ${TOP_TAGS})`;

export function toFacets(rows: readonly FacetRow[]): Facets {
  const facets: Facets = { status: [], category: [], country: [], tags: [] };
  for (const row of rows) facets[row.facet === 'tag' ? 'tags' : row.facet].push({ value: row.value, count: row.count });
  for (const values of Object.values(facets)) values.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  return facets;
}
