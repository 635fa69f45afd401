// /v1/petitions/{id}/updates: news the creator posts to a petition, and its list for anyone who may
// read the petition. Posting emits update.created in the same transaction, so webhook subscribers
// hear about exactly the updates that exist. The spec names the Updates tag without fields; these
// are also the fields the event carries. Lists are newest first, keyset-paginated on
// petition_updates_petition_recent_idx.
import { Type } from '@sinclair/typebox';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { actorOf, recordEvent } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { sendData, sendList } from '../http/context.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import { createCursorCodec, paginate } from '../../core/pagination/keyset.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertCanRead, assertOwner } from '../../core/petitions/policy.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';

import { Meta } from '../http/envelopes.ts';

const PetitionUpdateCreate = Type.Object(
  { title: Type.String({ minLength: 1, maxLength: 200 }), body: Type.String({ minLength: 1, maxLength: 10000 }) },
  { additionalProperties: false },
);

const PetitionUpdate = Type.Object({
  id: Type.String({ format: 'uuid' }),
  petition_id: Type.String({ format: 'uuid' }),
  author_id: Type.String({ format: 'uuid' }),
  title: Type.String(),
  body: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

const PetitionUpdateEnvelope = Type.Object({ data: PetitionUpdate, meta: Meta });
const PetitionUpdateList = Type.Object({ data: Type.Array(PetitionUpdate), pagination: PaginationSchema, meta: Meta });
const PetitionUpdateListQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });
const PetitionParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

const PetitionUpdateRow = z.object({
  id: z.string(),
  petition_id: z.string(),
  author_id: z.string(),
  title: z.string(),
  body: z.string(),
  created_at: z.string(),
  // created_at with its microseconds: the API's ISO strings keep milliseconds only, too coarse for a cursor.
  position_at: z.string(),
});

function toPetitionUpdate(row: z.infer<typeof PetitionUpdateRow>) {
  return { id: row.id, petition_id: row.petition_id, author_id: row.author_id, title: row.title, body: row.body, created_at: row.created_at };
}

const COLUMNS = sql.fragment`id, petition_id, author_id, title, body, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at`;

function insertPetitionUpdate(tx: CommonQueryMethods, update: { petitionId: string; authorId: string; title: string; body: string }) {
  return tx.one(sql.type(PetitionUpdateRow)`
    INSERT INTO petition_updates (petition_id, author_id, title, body)
    VALUES (${update.petitionId}, ${update.authorId}, ${update.title}, ${update.body})
    RETURNING ${COLUMNS}
  `);
}

function listPetitionUpdates(db: CommonQueryMethods, petitionId: string, after: readonly [string, string] | undefined, limit: number) {
  return db.any(sql.type(PetitionUpdateRow)`
    SELECT ${COLUMNS} FROM petition_updates
    WHERE petition_id = ${petitionId}
      ${after ? sql.fragment`AND (created_at, id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql.fragment``}
    ORDER BY created_at DESC, id DESC
    LIMIT ${limit + 1}
  `);
}

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]));

export function createPetitionUpdateRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  const tag = 'Updates';
  return [
    defineRoute({
      method: 'post', path: '/v1/petitions/:id/updates', operationId: 'createPetitionUpdate', tag, auth: 'required', permission: 'write',
      summary: 'Post an update to your petition (creator only); emits update.created',
      params: PetitionParams, body: PetitionUpdateCreate,
      responses: { 201: { description: 'The update', schema: PetitionUpdateEnvelope }, 403: { description: 'Not your petition' } },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        const update = await db.transaction(async (tx) => {
          assertOwner(await findPetitionById(tx, params.id), principal.userId);
          const row = await insertPetitionUpdate(tx, { petitionId: params.id, authorId: principal.userId, title: body.title, body: body.body });
          await recordEvent(tx, { type: 'update.created', actor: actorOf(principal), petitionId: params.id, data: toPetitionUpdate(row) });
          return row;
        });
        sendData(ctx, toPetitionUpdate(update), 201);
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/petitions/:id/updates', operationId: 'listPetitionUpdates', tag, auth: 'optional', permission: 'read',
      summary: "A petition's updates, newest first", params: PetitionParams, query: PetitionUpdateListQuery,
      responses: { 200: { description: 'A page of updates', schema: PetitionUpdateList } },
      async handler(ctx, { params, query }) {
        assertCanRead(await findPetitionById(db, params.id), ctx.state.principal?.userId);
        const rows = await listPetitionUpdates(db, params.id, cursor.decode(query.cursor), query.limit);
        const { page, pagination } = paginate(rows, query.limit, (row) => cursor.encode([row.position_at, row.id]));
        sendList(ctx, page.map(toPetitionUpdate), pagination);
      },
    }),
  ];
}
