// GET /v1/search/petitions on PostgreSQL full-text search: each petition's weighted tsvector (title A, tags B, description C) is in its own language (migration
// 0015), and it matches when the query, parsed by websearch_to_tsquery in that language, does; relevance blends ts_rank_cd with the signature count. Everything
// a search needs is behind this module and ./suggest.ts, so a dedicated engine could replace PostgreSQL here without the API noticing.
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createCursorCodec } from '../pagination/keyset.ts';
import { PETITION_SELECT, PetitionRow } from '../petitions/queries.ts';
import { boundedSearch, type SearchDependencies } from './bounded.ts';
import { filterConditions, ownLanguageQuery, textMatch, type PetitionSearchQuery } from './conditions.ts';
import { FACET_CELLS, FACET_ROWS, facetColumns, PASSES_ALL_FILTERS, toFacets, type Facets } from './facets.ts';
import { PUBLICLY_LISTED } from './publicly-listed.ts';

// The cursor carries the sort key of the last row and its id; relevance's key is the rank itself.
const numberCursor = createCursorCodec(Type.Tuple([Type.Number(), Type.String({ format: 'uuid' })]), 'search:ranked');
const timeCursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'search:recent');

// Text rank scaled by up to ~2x for popular petitions: wording decides, signatures break near-ties.
function relevance(q: string | undefined): FragmentSqlToken {
  if (!q) return sql.fragment`ln(1 + p.signature_count)::float8`;
  return sql.fragment`(ts_rank_cd(p.search_document, ${ownLanguageQuery(q)}) * (1 + ln(1 + p.signature_count) / 10))::float8`;
}

function sortKey(query: PetitionSearchQuery): FragmentSqlToken {
  if (query.sort === 'relevance') return relevance(query.q);
  if (query.sort === 'recent') return sql.fragment`p.created_at`;
  if (query.sort === 'signatures') return sql.fragment`p.signature_count::float8`;
  return sql.fragment`p.trending_score`;
}

/** The keyset condition on the match set: after the cursor's (sort key, id). */
function afterCursor(query: PetitionSearchQuery): FragmentSqlToken | undefined {
  if (query.sort === 'recent') {
    const after = timeCursor.decode(query.cursor);
    return after && sql.fragment`(sort_key, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)`;
  }
  const after = numberCursor.decode(query.cursor);
  return after && sql.fragment`(sort_key, id) < (${after[0]}::float8, ${after[1]}::uuid)`;
}

// One statement answers the page and the facets from one materialized match set, so the index and
// the table are searched once. Rows are ('hit', id, position, sort_key) for the page's hits and
// (facet, value, count) for the facets. The sort key (for relevance, ts_rank_cd: the costly part) is
// computed only for the matches that pass every filter, as the page's own query would.
const SearchRow = z.object({
  facet: z.enum(['hit', 'status', 'category', 'country', 'tag']),
  value: z.string(),
  count: z.number().nullable(),
  position: z.number().nullable(),
  sort_key: z.union([z.number(), z.string()]).nullable(),
});

export type SearchPage = { rows: PetitionRow[]; nextCursor: string | null; hasMore: boolean; facets: Facets };

export function searchPetitions(deps: SearchDependencies, query: PetitionSearchQuery): Promise<SearchPage> {
  const pageConditions = [PASSES_ALL_FILTERS, afterCursor(query)].filter((condition) => condition !== undefined);
  return boundedSearch(deps, async (tx) => {
    const found = await tx.any(sql.type(SearchRow)`
      WITH matches AS MATERIALIZED (
        SELECT p.id, ${facetColumns(query)}, CASE WHEN
        ${sql.join(Object.values(filterConditions(query)), sql.fragment` AND `)} THEN ${sortKey(query)} END AS sort_key
        FROM petitions p
        WHERE ${PUBLICLY_LISTED} AND ${textMatch(query.q)}
      ), page AS (
        SELECT id, sort_key FROM matches WHERE ${sql.join(pageConditions, sql.fragment` AND `)}
        ORDER BY sort_key DESC, id DESC
        LIMIT ${query.limit + 1}
      ), ${FACET_CELLS}
      SELECT 'hit' AS facet, id::text AS value, NULL::int AS count, row_number() OVER (ORDER BY sort_key DESC, id DESC)::int AS position, sort_key FROM page
      UNION ALL
      SELECT facet, value, count, NULL, NULL FROM (${FACET_ROWS}) AS facet_rows
    `);
    const hits = found.filter((row) => row.facet === 'hit').sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
    const page = hits.slice(0, query.limit);
    const last = page.at(-1);
    const hasMore = hits.length > query.limit;
    const nextCursor =
      hasMore && last
        ? query.sort === 'recent'
          ? timeCursor.encode([String(last.sort_key), last.value])
          : numberCursor.encode([Number(last.sort_key), last.value])
        : null;
    const facets = toFacets(
      found.flatMap((row) => (row.facet === 'hit' || row.count === null ? [] : [{ facet: row.facet, value: row.value, count: row.count }])),
    );
    return {
      rows: await petitionsInOrder(
        tx,
        page.map((hit) => hit.value),
      ),
      nextCursor,
      hasMore,
      facets,
    };
  });
}

async function petitionsInOrder(db: CommonQueryMethods, ids: string[]): Promise<PetitionRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(PetitionRow)`${PETITION_SELECT} WHERE p.id = ANY(${sql.array(ids, 'uuid')})`);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export { SEARCH_SORTS, type PetitionSearchQuery, type SearchSort } from './conditions.ts';
