// /v1/petitions/{id}/decision-makers: the people a petition is addressed to, with the delivery state
// of each one's portal invitation. Creator only. Adding one to an active petition invites them at
// once (workflow `decision-maker-invitation-<id>`, started inside the insert's transaction); before
// publish, the petition's lifecycle invites everyone when it is published.
import type { Client } from '@temporalio/client';
import type { DatabasePool } from 'slonik';
import { inviteDecisionMakers, decisionMakerInvitationWorkflowId, responseTokenWorkflowId } from '../../workflows/index.ts';
import { RallyEntityType, RallyPetitionId } from '../../workflows/search-attributes.ts';
import type { Config } from '../../platform/config.ts';
import { sendData, sendList } from '../http/context.ts';
import { assertThat, RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import { createPortalRoutes } from './portal-routes.ts';
import { assertCreator, countDecisionMakers, deleteDecisionMaker, insertDecisionMaker, listDecisionMakers, type DecisionMakerDependencies } from '../../core/decision-makers/queries.ts';
import { createResponseRoutes } from './response-routes.ts';
import { DecisionMakerCreate, DecisionMakerEnvelope, DecisionMakerList, DecisionMakerParams, PetitionParams, toDecisionMaker } from './schemas.ts';

// As many as a petition may name when it is created.
const MAX_DECISION_MAKERS = 50;

export function createDecisionMakerRoutes({ db, temporal, config }: { db: DatabasePool; temporal: Client; config: Config }): AnyRouteSpec[] {
  const deps: DecisionMakerDependencies = { db, temporal, taskQueue: config.temporal.taskQueue, publicUrl: config.publicUrl };
  const base = { tag: 'Decision makers', auth: 'required', params: PetitionParams } as const;
  return [
    defineRoute({
      ...base, method: 'get', path: '/v1/petitions/:id/decision-makers', operationId: 'listDecisionMakers', permission: 'read',
      summary: 'The decision makers of your petition, each with the delivery state of their portal invitation',
      responses: { 200: { description: 'Decision makers, oldest first (at most 50)', schema: DecisionMakerList } },
      async handler(ctx, { params }) {
        await assertCreator(db, viewerOf(ctx.state.principal), params.id);
        const rows = await listDecisionMakers(db, params.id);
        sendList(ctx, rows.map(toDecisionMaker), { next_cursor: null, has_more: false });
      },
    }),
    defineRoute({
      ...base, method: 'post', path: '/v1/petitions/:id/decision-makers', operationId: 'addDecisionMaker', permission: 'write',
      summary: 'Address the petition to one more person; on an active petition they are invited at once',
      body: DecisionMakerCreate,
      responses: { 201: { description: 'The decision maker', schema: DecisionMakerEnvelope } },
      async handler(ctx, { params, body }) {
        const created = await db.transaction(async (tx) => {
          const petition = await assertCreator(tx, viewerOf(ctx.state.principal), params.id, { lock: true });
          assertThat((await countDecisionMakers(tx, params.id)) < MAX_DECISION_MAKERS, 'conflict', `A petition names at most ${MAX_DECISION_MAKERS} decision makers.`, { code: 'decision_maker_limit' });
          const row = await insertDecisionMaker(tx, params.id, body);
          if (petition.status === 'active') await startInvitation(deps, params.id, row.id);
          return row;
        });
        ctx.set('Location', `/v1/petitions/${params.id}/decision-makers/${created.id}`);
        sendData(ctx, toDecisionMaker(created), 201);
      },
    }),
    defineRoute({
      ...base, method: 'delete', path: '/v1/petitions/:id/decision-makers/:decision_maker_id', operationId: 'removeDecisionMaker', permission: 'destroy',
      summary: 'Remove a decision maker; their portal link stops working at once (a response they gave stays)',
      params: DecisionMakerParams,
      responses: { 204: { description: 'Removed' } },
      async handler(ctx, { params }) {
        await assertCreator(db, viewerOf(ctx.state.principal), params.id);
        const removed = await deleteDecisionMaker(db, params.id, params.decision_maker_id);
        assertThat(removed, 'not-found', `This petition has no decision maker ${params.decision_maker_id}.`);
        // Best effort: if the cancel fails, the expiry finds no token and changes nothing.
        if (removed.token_id) await temporal.workflow.getHandle(responseTokenWorkflowId(removed.token_id)).cancel().catch(() => undefined);
        ctx.status = 204;
      },
    }),
    ...createResponseRoutes(deps),
    ...createPortalRoutes(deps),
  ];
}

async function startInvitation(deps: DecisionMakerDependencies, petitionId: string, decisionMakerId: string) {
  await deps.temporal.workflow
    .start(inviteDecisionMakers, {
      workflowId: decisionMakerInvitationWorkflowId(decisionMakerId),
      taskQueue: deps.taskQueue,
      args: [{ petitionId, decisionMakerIds: [decisionMakerId] }],
      typedSearchAttributes: [
        { key: RallyPetitionId, value: petitionId },
        { key: RallyEntityType, value: 'petition' },
      ],
    })
    .catch((error: unknown) => {
      throw new RallyError('service-unavailable', 'The workflow service cannot be reached; nothing was added. Retry shortly.', { cause: error });
    });
}
