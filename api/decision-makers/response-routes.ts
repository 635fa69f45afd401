// /v1/petitions/{id}/responses: what decision makers answered. Anyone who may read the petition sees
// the published responses; its creator also sees those not yet published, and publishes them.
import { loadViewer } from '../../core/petitions/viewer.ts';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../../core/events/record-event.ts';
import { publishResponse } from '../../core/decision-makers/manage.ts';
import { sendData } from '../http/context.ts';
import { sendKeysetList } from '../http/pagination.ts';
import { createCursorCodec } from '../../core/pagination/keyset.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertCanRead, canManage, viewerOf } from '../../core/petitions/policy.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';
import { listResponses, type DecisionMakerDependencies } from '../../core/decision-makers/queries.ts';
import { PetitionParams, ResponseEnvelope, ResponseList, ResponseListQuery, ResponseParams, toResponse } from './schemas.ts';

const cursor = createCursorCodec(Type.Tuple([Type.String({ format: 'date-time' }), Type.String({ format: 'uuid' })]), 'decision-maker-responses');

export function createResponseRoutes({ db }: DecisionMakerDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/petitions/:id/responses',
      operationId: 'listDecisionMakerResponses',
      tag: 'Decision makers',
      auth: 'optional',
      scope: 'read:petitions',
      permission: 'read',
      summary: 'List decision-maker responses',
      description: "Decision makers' published responses, newest first (the creator also sees unpublished ones).",
      params: PetitionParams,
      query: ResponseListQuery,
      responses: { 200: { description: 'Responses', schema: ResponseList } },
      async handler(ctx, { params, query }) {
        const viewer = await loadViewer(db, ctx.state.principal);
        const petition = await findPetitionById(db, params.id);
        assertCanRead(viewer, petition, query.access_code);
        await sendKeysetList(ctx, query, {
          cursor,
          rows: (after, limit) =>
            listResponses(db, params.id, {
              includeUnpublished: canManage(viewer, petition),
              after,
              limit,
            }),
          position: (row) => [row.created_at, row.id],
          present: toResponse,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/petitions/:id/responses/:response_id/publish',
      operationId: 'publishDecisionMakerResponse',
      tag: 'Decision makers',
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: 'Publish a decision-maker response',
      description: 'Publish a response on the petition page (creator only); emits response.published.',
      params: ResponseParams,
      responses: { 200: { description: 'The published response', schema: ResponseEnvelope } },
      async handler(ctx, { params }) {
        const published = await publishResponse(db, await loadViewer(db, ctx.state.principal), actorOf(ctx.state.principal!), params.id, params.response_id);
        sendData(ctx, toResponse(published));
      },
    }),
  ];
}
