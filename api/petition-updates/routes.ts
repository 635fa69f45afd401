// /v1/petitions/{id}/updates: news the creator posts to a petition, and its list for anyone who may
// read the petition. Posting emits update.created in the same transaction, so webhook subscribers
// hear about exactly the updates that exist.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { actorOf, recordEvent } from '../../db/events.ts';
import { sendData, sendList } from '../http/context.ts';
import { createCursorCodec, paginate } from '../http/pagination.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertCanRead, assertOwner } from '../petitions/access.ts';
import { findPetitionById } from '../petitions/queries.ts';
import { insertPetitionUpdate, listPetitionUpdates } from './queries.ts';
import { PetitionParams, PetitionUpdateCreate, PetitionUpdateEnvelope, PetitionUpdateList, PetitionUpdateListQuery, toPetitionUpdate } from './schemas.ts';

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
