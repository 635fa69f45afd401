// GET /v1/petitions: keyset pagination for each sort order, so page 500 costs what page 1 costs.
// Public lists show public, non-draft petitions only; a creator listing their own petitions
// (creatorId = themselves) also sees drafts, private and unlisted ones.
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';
import { createCursorCodec } from '../pagination/keyset.ts';
import { PETITION_SELECT, PetitionRow } from './queries.ts';
import type { PetitionStatus } from '../vocabulary.ts';

export type PetitionSort = 'recent' | 'popular' | 'trending';
/** A list request (validated by the API's PetitionListQuery schema). */
export type PetitionListQuery = { status?: PetitionStatus; categoryId?: string; creatorId?: string; tags?: string; sort: PetitionSort; cursor?: string; limit: number };

// [sort key, id]: created_at for recent, rolled-up count for popular, score for trending. One codec
// per sort, each tagged with it, so a cursor of one order is refused by another.
const Id = Type.String({ format: 'uuid' });
const CURSORS = {
  recent: createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Id]), 'petitions:recent'),
  popular: createCursorCodec(Type.Tuple([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Id]), 'petitions:popular'),
  trending: createCursorCodec(Type.Tuple([Type.Number(), Id]), 'petitions:trending'),
};

const SORTS = {
  recent: { column: sql.fragment`p.created_at`, cast: sql.fragment`::timestamptz`, key: (row: PetitionRow) => row.created_at },
  popular: { column: sql.fragment`p.signature_count`, cast: sql.fragment`::bigint`, key: (row: PetitionRow) => row.ranked_signature_count },
  trending: { column: sql.fragment`p.trending_score`, cast: sql.fragment`::float8`, key: (row: PetitionRow) => row.trending_score },
} as const;

export function positionOf(sort: PetitionListQuery['sort'], row: PetitionRow): string {
  return (CURSORS[sort] as { encode(position: unknown): string }).encode([SORTS[sort].key(row), row.id]);
}

export function listPetitions(db: CommonQueryMethods, query: PetitionListQuery, callerId: string | undefined) {
  const sort = SORTS[query.sort];
  const ownList = query.creatorId !== undefined && query.creatorId === callerId;
  const conditions: FragmentSqlToken[] = [sql.fragment`p.deleted_at IS NULL`];
  if (!ownList) conditions.push(sql.fragment`p.visibility = 'public'`, sql.fragment`p.status NOT IN ('draft', 'under_review')`);
  if (query.status) conditions.push(sql.fragment`p.status = ${query.status}`);
  if (query.categoryId) conditions.push(sql.fragment`p.category_id = ${query.categoryId}`);
  if (query.creatorId) conditions.push(sql.fragment`p.creator_id = ${query.creatorId}`);
  const tags = (query.tags ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
  if (tags.length > 0) conditions.push(sql.fragment`p.tags @> ${sql.array(tags, 'text')}`);
  const after = CURSORS[query.sort].decode(query.cursor);
  if (after) conditions.push(sql.fragment`(${sort.column}, p.id) < (${after[0]}${sort.cast}, ${after[1]}::uuid)`);

  return db.any(sql.type(PetitionRow)`
    ${PETITION_SELECT}
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY ${sort.column} DESC, p.id DESC
    LIMIT ${query.limit + 1}
  `);
}
