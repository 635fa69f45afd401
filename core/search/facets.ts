// Facet counts of a search: how many matches there are per status, category, country and (top)
// tag. Each facet is counted for the same query without its own filter, so a UI can show how many
// results picking another value would give. One scan of the matches feeds all four.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { filterConditions, textMatch, type FacetName, type PetitionSearchQuery } from './conditions.ts';
import { PUBLICLY_LISTED } from './publicly-listed.ts';

export type FacetValue = { value: string; count: number };
export type Facets = Record<'status' | 'category' | 'country' | 'tags', FacetValue[]>;

export const TOP_TAGS = 10;

const FacetRow = z.object({ facet: z.enum(['status', 'category', 'country', 'tag']), value: z.string(), count: z.number() });

export async function searchFacets(db: CommonQueryMethods, query: PetitionSearchQuery): Promise<Facets> {
  const only = filterConditions(query);
  const all = (except: FacetName) => (['status', 'category', 'country', 'tag'] as const).filter((name) => name !== except).map((name) => sql.identifier([`${name}_ok`]));
  const otherFilters = (except: FacetName) => sql.join(all(except), sql.fragment` AND `);
  const rows = await db.any(sql.type(FacetRow)`
    WITH matches AS MATERIALIZED (
      SELECT p.status, p.category_id, upper(p.location_country) AS country, p.tags,
        ${only.status} AS status_ok, ${only.category} AS category_ok, ${only.country} AS country_ok, ${only.tag} AS tag_ok
      FROM petitions p
      WHERE ${PUBLICLY_LISTED} AND ${textMatch(query.q)}
    )
    SELECT 'status' AS facet, status AS value, count(*)::int AS count FROM matches WHERE ${otherFilters('status')} GROUP BY status
    UNION ALL
    SELECT 'category', category_id::text, count(*)::int FROM matches WHERE ${otherFilters('category')} AND category_id IS NOT NULL GROUP BY category_id
    UNION ALL
    SELECT 'country', country, count(*)::int FROM matches WHERE ${otherFilters('country')} AND country ~ '^[A-Z]{2}$' GROUP BY country
    UNION ALL
    (SELECT 'tag', tag, count(*)::int FROM matches, unnest(matches.tags) AS tag WHERE ${otherFilters('tag')}
      GROUP BY tag ORDER BY count(*) DESC, tag LIMIT ${TOP_TAGS})
  `);
  const facets: Facets = { status: [], category: [], country: [], tags: [] };
  for (const row of rows) facets[row.facet === 'tag' ? 'tags' : row.facet].push({ value: row.value, count: row.count });
  for (const values of Object.values(facets)) values.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  return facets;
}
