// GET /v1/search/petitions on PostgreSQL full-text search. Each petition carries a weighted
// tsvector (title A, tags B, description C) in its own language (migration 0015); a query is
// parsed by websearch_to_tsquery in each language Rally stems, and a petition matches when the
// query in its own language does. Relevance is ts_rank_cd blended with the signature count.
// Everything a search needs is behind this module and ./suggest.ts, so a dedicated engine could
// replace PostgreSQL here without the API noticing.
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createCursorCodec } from '../pagination/keyset.ts';
import { PETITION_SELECT, PetitionRow } from '../petitions/queries.ts';
import { boundedSearch, type SearchDependencies } from './bounded.ts';
import { filterConditions, ownLanguageQuery, textMatch, type PetitionSearchQuery } from './conditions.ts';
import { searchFacets, type Facets } from './facets.ts';
import { PUBLICLY_LISTED } from './publicly-listed.ts';

// The cursor carries the sort key of the last row and its id; relevance's key is the rank itself.
const numberCursor = createCursorCodec(Type.Tuple([Type.Number(), Type.String({ format: 'uuid' })]));
const timeCursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]));

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

function afterCursor(query: PetitionSearchQuery, key: FragmentSqlToken): FragmentSqlToken | undefined {
  if (query.sort === 'recent') {
    const after = timeCursor.decode(query.cursor);
    return after && sql.fragment`(${key}, p.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)`;
  }
  const after = numberCursor.decode(query.cursor);
  return after && sql.fragment`(${key}, p.id) < (${after[0]}::float8, ${after[1]}::uuid)`;
}

const Hit = z.object({ id: z.string(), sort_key: z.union([z.number(), z.string()]) });

export type SearchPage = { rows: PetitionRow[]; nextCursor: string | null; hasMore: boolean; facets: Facets };

export function searchPetitions(deps: SearchDependencies, query: PetitionSearchQuery): Promise<SearchPage> {
  const key = sortKey(query);
  const filters = filterConditions(query);
  const conditions = [PUBLICLY_LISTED, textMatch(query.q), filters.status, filters.category, filters.country, filters.tag];
  const after = afterCursor(query, key);
  if (after) conditions.push(after);
  return boundedSearch(deps, async (tx) => {
    const hits = await tx.any(sql.type(Hit)`
      SELECT p.id, ${key} AS sort_key FROM petitions p
      WHERE ${sql.join(conditions, sql.fragment` AND `)}
      ORDER BY ${key} DESC, p.id DESC
      LIMIT ${query.limit + 1}
    `);
    const page = hits.slice(0, query.limit);
    const last = page.at(-1);
    const hasMore = hits.length > query.limit;
    const nextCursor = hasMore && last ? (query.sort === 'recent' ? timeCursor.encode([String(last.sort_key), last.id]) : numberCursor.encode([Number(last.sort_key), last.id])) : null;
    return { rows: await petitionsInOrder(tx, page.map((hit) => hit.id)), nextCursor, hasMore, facets: await searchFacets(tx, query) };
  });
}

async function petitionsInOrder(db: CommonQueryMethods, ids: string[]): Promise<PetitionRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.any(sql.type(PetitionRow)`${PETITION_SELECT} WHERE p.id = ANY(${sql.array(ids, 'uuid')})`);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export { SEARCH_SORTS, type PetitionSearchQuery, type SearchSort } from './conditions.ts';
