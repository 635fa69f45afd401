// GET /v1/petitions/export: a page of petitions, or with includeSignatures=true a page of signatures
// joined with their petitions, as CSV or JSON. The caller gets what they may list (public, published
// petitions) plus all of their own; signatures of petitions whose signature privacy is not public
// only when they are the creator, and signers' emails and IP-derived city and country only on their
// own petitions (everyone else gets aggregate counts only). Pages are keyset
// cursors, oldest first, so an export resumed later continues where it stopped. A page (at most 1000
// rows) is read in one query, because its next cursor travels in headers, before the body; the body
// is then streamed. At most 10 exports per minute per user, shared by every API process.
import type { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { CommonQueryMethods, DatabasePool, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { RallyContext } from '../http/context.ts';
import { exportStream } from '../http/export-stream.ts';
import { CursorQuery, LimitQuery } from '../http/pagination.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { Status } from './schemas.ts';

const ExportQuery = Type.Object(
  {
    format: Type.Union([Type.Literal('csv'), Type.Literal('json')], { default: 'json' }),
    status: Type.Optional(Status),
    categoryId: Type.Optional(Type.String({ format: 'uuid' })),
    creatorId: Type.Optional(Type.String({ format: 'uuid' })),
    includeSignatures: Type.Boolean({ default: false, description: 'One row per signature, joined with its petition.' }),
    cursor: Type.Optional(CursorQuery),
    limit: LimitQuery({ max: 1000, default: 100 }),
  },
  { additionalProperties: false },
);
type ExportQuery = Static<typeof ExportQuery>;

// The kind is part of the position, so a cursor of one kind of export is refused by the other.
const exportCursor = createCursorCodec(Type.Tuple([Type.Union([Type.Literal('petitions'), Type.Literal('signatures')]), Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]));

// created_at with its microseconds: the API's ISO strings keep milliseconds only, too coarse for a cursor.
const position = (column: FragmentSqlToken) => sql.fragment`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const PETITION_COLUMNS = ['id', 'slug', 'title', 'status', 'visibility', 'category', 'creator_id', 'creator_name', 'signature_count', 'signature_goal', 'tags', 'created_at', 'published_at', 'closed_at'] as const;
const PetitionExportRow = z.object({
  id: z.string(), slug: z.string(), title: z.string(), status: z.string(), visibility: z.string(), category: z.string().nullable(), creator_id: z.string(),
  creator_name: z.string(), signature_count: z.number(), signature_goal: z.number().nullable(), tags: z.array(z.string()), created_at: z.string(),
  published_at: z.string().nullable(), closed_at: z.string().nullable(), position_at: z.string(),
});

const SIGNATURE_COLUMNS = ['signature_id', 'petition_id', 'petition_slug', 'petition_title', 'signer_name', 'signer_slug', 'signer_email', 'comment', 'is_anonymous', 'display_location', 'city', 'country', 'signed_at'] as const;
const SignatureExportRow = z.object({
  signature_id: z.string(), petition_id: z.string(), petition_slug: z.string(), petition_title: z.string(), signer_name: z.string().nullable(),
  signer_slug: z.string().nullable(), signer_email: z.string().nullable(), comment: z.string().nullable(), is_anonymous: z.boolean(),
  display_location: z.string().nullable(), city: z.string().nullable(), country: z.string().nullable(), signed_at: z.string(), position_at: z.string(),
});

function petitionConditions(query: ExportQuery, callerId: string): FragmentSqlToken[] {
  const conditions = [
    sql.fragment`p.deleted_at IS NULL`,
    sql.fragment`(p.creator_id = ${callerId} OR (p.visibility = 'public' AND p.status NOT IN ('draft', 'under_review')))`,
  ];
  if (query.status) conditions.push(sql.fragment`p.status = ${query.status}`);
  if (query.categoryId) conditions.push(sql.fragment`p.category_id = ${query.categoryId}`);
  if (query.creatorId) conditions.push(sql.fragment`p.creator_id = ${query.creatorId}`);
  return conditions;
}

function petitionPage(db: CommonQueryMethods, query: ExportQuery, callerId: string, after: readonly [string, string] | undefined) {
  const conditions = petitionConditions(query, callerId);
  if (after) conditions.push(sql.fragment`(p.created_at, p.id) > (${after[0]}::timestamptz, ${after[1]}::uuid)`);
  return db.any(sql.type(PetitionExportRow)`
    SELECT p.id, p.slug, p.title, p.status, p.visibility, c.slug AS category, p.creator_id, u.display_name AS creator_name,
      COALESCE((SELECT sum(sc.count) FROM signature_counters sc WHERE sc.petition_id = p.id), 0)::bigint AS signature_count,
      p.signature_goal, p.tags, p.created_at, p.published_at, p.closed_at, ${position(sql.fragment`p.created_at`)} AS position_at
    FROM petitions p JOIN users u ON u.id = p.creator_id LEFT JOIN categories c ON c.id = p.category_id
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY p.created_at, p.id
    LIMIT ${query.limit + 1}
  `);
}

function signaturePage(db: CommonQueryMethods, query: ExportQuery, callerId: string, after: readonly [string, string] | undefined) {
  const conditions = petitionConditions(query, callerId);
  conditions.push(sql.fragment`(p.signature_privacy = 'public' OR p.creator_id = ${callerId})`);
  if (after) conditions.push(sql.fragment`(s.created_at, s.id) > (${after[0]}::timestamptz, ${after[1]}::uuid)`);
  const named = (value: FragmentSqlToken) => sql.fragment`CASE WHEN s.is_anonymous THEN NULL ELSE ${value} END`;
  return db.any(sql.type(SignatureExportRow)`
    SELECT s.id AS signature_id, p.id AS petition_id, p.slug AS petition_slug, p.title AS petition_title,
      ${named(sql.fragment`u.display_name`)} AS signer_name, ${named(sql.fragment`u.slug`)} AS signer_slug,
      CASE WHEN p.creator_id = ${callerId} THEN ${named(sql.fragment`u.email`)} END AS signer_email,
      s.comment, s.is_anonymous, s.display_location,
      -- Located from the signer's address: the petition's creator alone may see it, signer by signer.
      CASE WHEN p.creator_id = ${callerId} THEN s.city END AS city, CASE WHEN p.creator_id = ${callerId} THEN s.country END AS country,
      s.created_at AS signed_at, ${position(sql.fragment`s.created_at`)} AS position_at
    FROM signatures s JOIN petitions p ON p.id = s.petition_id JOIN users u ON u.id = s.user_id
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY s.created_at, s.id
    LIMIT ${query.limit + 1}
  `);
}

export function createPetitionExportRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/petitions/export', operationId: 'exportPetitions', tag: 'Petitions', auth: 'required', permission: 'read', rateLimit: 'export',
      summary: 'A page of petitions (or of their signatures) as CSV or JSON; the next page is named by the X-Next-Cursor and Link headers. 10 per minute.',
      query: ExportQuery,
      responses: { 200: { description: 'The rows, streamed', contentType: 'text/csv' }, 429: { description: 'More than 10 exports in a minute' } },
      async handler(ctx, { query }) {
        const callerId = ctx.state.principal!.userId;
        const kind = query.includeSignatures ? 'signatures' : 'petitions';
        const after = exportCursor.decode(query.cursor);
        if (after && after[0] !== kind) throw new RallyError('invalid-cursor', `This cursor belongs to an export of ${after[0]}; request the first page again without a cursor.`);
        const start = after && ([after[1], after[2]] as const);
        if (kind === 'signatures') {
          const rows = await signaturePage(deps.db, query, callerId, start);
          const { page, pagination } = paginate(rows, query.limit, (row) => exportCursor.encode([kind, row.position_at, row.signature_id]));
          sendPage(ctx, `petition-signatures.${query.format}`, pagination.next_cursor, exportStream(query.format, SIGNATURE_COLUMNS, singleBatch(page)));
        } else {
          const rows = await petitionPage(deps.db, query, callerId, start);
          const { page, pagination } = paginate(rows, query.limit, (row) => exportCursor.encode([kind, row.position_at, row.id]));
          sendPage(ctx, `petitions.${query.format}`, pagination.next_cursor, exportStream(query.format, PETITION_COLUMNS, singleBatch(page)));
        }
      },
    }),
  ];
}

function sendPage(ctx: RallyContext, filename: string, nextCursor: string | null, body: Readable): void {
  if (nextCursor) {
    const next = new URLSearchParams(ctx.querystring);
    next.set('cursor', nextCursor);
    ctx.set('X-Next-Cursor', nextCursor);
    ctx.set('Link', `<${ctx.path}?${next.toString()}>; rel="next"`);
  }
  ctx.type = filename.endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.body = body;
}

async function* singleBatch<Row>(rows: readonly Row[]): AsyncIterable<readonly Row[]> {
  yield rows;
}
