// GET /v1/petitions: keyset pagination for each sort order, so page 500 costs what page 1 costs. Which petitions a list shows is the policy's listedTo
// (core/petitions/policy.ts): public, published petitions, plus, in a list filtered by creatorId, those the viewer manages (so a creator listing their own
// petitions also sees drafts, private and unlisted ones; the unfiltered list stays public).
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';
import { createCursorCodec, keysetPage, type KeyColumn } from '../pagination/keyset.ts';
import { ANONYMOUS, listedTo, type Viewer } from './policy.ts';
import { PETITION_SELECT, PetitionRow } from './queries.ts';
import type { PetitionStatus } from '../vocabulary.ts';

export type PetitionSort = 'recent' | 'popular' | 'trending';
/** A list request (validated by the API's PetitionListQuery schema). */
export type PetitionListQuery = {
  status?: PetitionStatus;
  categoryId?: string;
  creatorId?: string;
  tags?: string;
  sort: PetitionSort;
  cursor?: string;
  limit: number;
};

// [sort key, id]: created_at for recent, rolled-up count for popular, score for trending.
const Id = Type.String({ format: 'uuid' });
// One cursor shape per sort, tagged with it: a cursor of one sort used with another is refused.
const CURSORS = {
  recent: createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Id]), 'petitions:recent'),
  popular: createCursorCodec(Type.Tuple([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Id]), 'petitions:popular'),
  trending: createCursorCodec(Type.Tuple([Type.Number(), Id]), 'petitions:trending'),
};

const SORTS: Record<PetitionSort, { column: KeyColumn; key: (row: PetitionRow) => string | number }> = {
  recent: { column: [sql.fragment`p.created_at`, 'timestamptz'], key: (row) => row.created_at },
  popular: { column: [sql.fragment`p.signature_count`, 'int8'], key: (row) => row.ranked_signature_count },
  trending: { column: [sql.fragment`p.trending_score`, 'float8'], key: (row) => row.trending_score },
};

export function positionOf(sort: PetitionListQuery['sort'], row: PetitionRow): string {
  return (CURSORS[sort] as { encode(position: unknown): string }).encode([SORTS[sort].key(row), row.id]);
}

export function listPetitions(db: CommonQueryMethods, query: PetitionListQuery, viewer: Viewer) {
  const sort = SORTS[query.sort];
  const conditions: FragmentSqlToken[] = [listedTo(query.creatorId === undefined ? ANONYMOUS : viewer)];
  if (query.status) conditions.push(sql.fragment`p.status = ${query.status}`);
  if (query.categoryId) conditions.push(sql.fragment`p.category_id = ${query.categoryId}`);
  if (query.creatorId) conditions.push(sql.fragment`p.creator_id = ${query.creatorId}`);
  const tags = (query.tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
  if (tags.length > 0) conditions.push(sql.fragment`p.tags @> ${sql.array(tags, 'text')}`);
  const keyset = keysetPage([sort.column, [sql.fragment`p.id`, 'uuid']], CURSORS[query.sort].decode(query.cursor), 'desc', query.limit);

  return db.any(sql.type(PetitionRow)`
    ${PETITION_SELECT}
    WHERE ${sql.join(conditions, sql.fragment` AND `)} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}
