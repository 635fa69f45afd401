// /v1/petitions/{id}/decision-makers: the people a petition is addressed to, with the delivery state of each one's portal invitation. Creator only. Adding one
// to an active petition invites them at once (core/decision-makers/manage.ts); before publish, the petition's lifecycle invites everyone when it is published.
import { loadViewer } from '../../core/petitions/viewer.ts';
import type { DatabasePool } from 'slonik';
import { addDecisionMaker } from '../../core/decision-makers/manage.ts';
import type { Config } from '../../platform/config.ts';
import { sendData, sendList } from '../http/context.ts';
import { assertThat } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { viewerOf } from '../../core/petitions/policy.ts';
import { createPortalRoutes } from './portal-routes.ts';
import {
  assertCreator,
  deleteDecisionMaker,
  listDecisionMakers,
  type DecisionMakerDependencies,
  type DecisionMakerWorkflows,
} from '../../core/decision-makers/queries.ts';
import { createResponseRoutes } from './response-routes.ts';
import { DecisionMakerCreate, DecisionMakerEnvelope, DecisionMakerList, DecisionMakerParams, PetitionParams, toDecisionMaker } from './schemas.ts';

export function createDecisionMakerRoutes({ db, workflows, config }: { db: DatabasePool; workflows: DecisionMakerWorkflows; config: Config }): AnyRouteSpec[] {
  const deps: DecisionMakerDependencies = { db, workflows, publicUrl: config.publicUrl };
  const base = { tag: 'Decision makers', auth: 'required', params: PetitionParams } as const;
  return [
    defineRoute({
      ...base,
      scope: 'read:petitions',
      method: 'get',
      path: '/v1/petitions/:id/decision-makers',
      operationId: 'listDecisionMakers',
      permission: 'read',
      summary: "List a petition's decision makers",
      description: 'The decision makers of your petition, each with the delivery state of their portal invitation.',
      responses: { 200: { description: 'Decision makers, oldest first (at most 50)', schema: DecisionMakerList } },
      async handler(ctx, { params }) {
        await assertCreator(db, await loadViewer(db, ctx.state.principal), params.id);
        const rows = await listDecisionMakers(db, params.id);
        sendList(ctx, rows.map(toDecisionMaker), { next_cursor: null, has_more: false });
      },
    }),
    defineRoute({
      ...base,
      scope: 'write:petitions',
      method: 'post',
      path: '/v1/petitions/:id/decision-makers',
      operationId: 'addDecisionMaker',
      permission: 'write',
      summary: 'Add a decision maker',
      description: 'Address the petition to one more person; on an active petition they are invited at once.',
      body: DecisionMakerCreate,
      responses: {
        201: { description: 'The decision maker', schema: DecisionMakerEnvelope },
        429: {
          description:
            'An invitation budget is spent (code invitation_limit: 50 per petition, 200 per creator a day; ' +
            'address_recently_invited: one per address per petition a week)',
        },
      },
      async handler(ctx, { params, body }) {
        const created = await addDecisionMaker(deps, await loadViewer(deps.db, ctx.state.principal), params.id, body);
        ctx.set('Location', `/v1/petitions/${params.id}/decision-makers/${created.id}`);
        sendData(ctx, toDecisionMaker(created), 201);
      },
    }),
    defineRoute({
      ...base,
      scope: 'write:petitions',
      method: 'delete',
      path: '/v1/petitions/:id/decision-makers/:decision_maker_id',
      operationId: 'removeDecisionMaker',
      permission: 'destroy',
      summary: 'Remove a decision maker',
      description: 'Remove a decision maker; their portal link stops working at once (a response they gave stays).',
      params: DecisionMakerParams,
      responses: { 204: { description: 'Removed' } },
      async handler(ctx, { params }) {
        await assertCreator(db, await loadViewer(db, ctx.state.principal), params.id);
        const removed = await deleteDecisionMaker(db, params.id, params.decision_maker_id);
        assertThat(removed, 'not-found', `This petition has no decision maker ${params.decision_maker_id}.`);
        // Best effort: if the cancel fails, the expiry finds no token and changes nothing.
        if (removed.token_id) await workflows.responseTokenWithdrawn(removed.token_id);
        ctx.status = 204;
      },
    }),
    ...createResponseRoutes(deps),
    ...createPortalRoutes(deps),
  ];
}
