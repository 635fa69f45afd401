// /v1/petitions/{id}/updates: news the creator posts to a petition (core/petition-updates/), and its
// list for anyone who may read the petition. The spec names the Updates tag without fields; these
// are also the fields the update.created event carries.
import { loadViewer } from '../../core/petitions/viewer.ts';
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { actorOf } from '../../core/events/record-event.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import { listPetitionUpdates, postPetitionUpdate } from '../../core/petition-updates/updates.ts';
import { PetitionUpdateCreate, PetitionUpdateEnvelope, PetitionUpdateList, PetitionUpdateListQuery } from './schemas.ts';

const PetitionParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'petition-updates');

export function createPetitionUpdateRoutes(deps: { db: DatabasePool }): AnyRouteSpec[] {
  const { db } = deps;
  const tag = 'Updates';
  return [
    defineRoute({
      method: 'post',
      path: '/v1/petitions/:id/updates',
      operationId: 'createPetitionUpdate',
      tag,
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: 'Post a petition update',
      description: 'Post an update to your petition (creator only); emits update.created.',
      params: PetitionParams,
      body: PetitionUpdateCreate,
      responses: { 201: { description: 'The update', schema: PetitionUpdateEnvelope }, 403: { description: 'Not your petition' } },
      async handler(ctx, { params, body }) {
        const principal = ctx.state.principal!;
        const update = await postPetitionUpdate(db, { ...(await loadViewer(db, principal)), userId: principal.userId }, actorOf(principal), params.id, body);
        sendData(ctx, update, 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/updates',
      operationId: 'listPetitionUpdates',
      tag,
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: "List a petition's updates",
      description: "A petition's updates, newest first.",
      params: PetitionParams,
      query: PetitionUpdateListQuery,
      responses: { 200: { description: 'A page of updates', schema: PetitionUpdateList } },
      async handler(ctx, { params, query }) {
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) => listPetitionUpdates(db, viewerOf(ctx.state.principal), params.id, after, limit),
          position: (row) => [row.created_at, row.id],
          present: (row) => row,
        });
      },
    }),
  ];
}
