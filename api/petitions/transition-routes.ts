// POST /v1/petitions/{id}/publish | close | victory. Each goes through the petition's workflow, which
// owns the state machine: two concurrent publishes give one 200 and one 409.
import { loadViewer } from '../../core/petitions/viewer.ts';
import type { DatabasePool } from 'slonik';
import { actorOf } from '../../core/events/record-event.ts';
import { sourcesOf } from '../../core/petitions/transitions.ts';
import { sendData, type RallyContext } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { assertCanManage, viewerOf } from '../../core/petitions/policy.ts';
import type { LifecycleDependencies } from '../../core/petitions/lifecycle.ts';
import { toPetitionDetail } from '../../core/petitions/presenter.ts';
import { findPetitionById } from '../../core/petitions/queries.ts';
import { PetitionEnvelope, PetitionIdParams, VictoryBody } from './schemas.ts';

// Each verb is also the name of the lifecycle workflow's update.
type Transition = { verb: 'publish' | 'close' | 'victory'; summary: string; description: string };

const TRANSITIONS: Transition[] = [
  { verb: 'publish', summary: 'Publish a petition', description: 'Publish a draft: it becomes active and public (creator or organization admin).' },
  { verb: 'close', summary: 'Close a petition', description: 'Close an active petition (creator or organization admin).' },
  {
    verb: 'victory',
    summary: "Declare a petition's victory",
    description: 'Mark an active petition a victory, with an optional message (creator or organization admin).',
  },
];

/** signerDataRetentionMs: RALLY_SIGNER_DATA_RETENTION (null: off), for the petition's signer-data dates. */
export function createTransitionRoutes(deps: LifecycleDependencies & { db: DatabasePool; signerDataRetentionMs: number | null }): AnyRouteSpec[] {
  async function run(ctx: RallyContext, petitionId: string, definition: Transition, victoryMessage?: string) {
    const principal = ctx.state.principal!;
    const petition = await findPetitionById(deps.db, petitionId);
    assertCanManage(await loadViewer(deps.db, principal, petition), petition);
    await deps.workflows.transitionPetition(definition.verb, petitionId, petition.status, { actor: actorOf(principal), victoryMessage });
    sendData(ctx, toPetitionDetail((await findPetitionById(deps.db, petitionId))!, principal.userId, deps.signerDataRetentionMs));
  }

  return TRANSITIONS.map((definition) =>
    defineRoute({
      method: 'post',
      path: `/v1/petitions/:id/${definition.verb}`,
      operationId: `${definition.verb}Petition`,
      tag: 'Petitions',
      auth: 'required',
      scope: 'write:petitions',
      permission: 'write',
      summary: definition.summary,
      description: definition.description,
      params: PetitionIdParams,
      ...(definition.verb === 'victory' ? { body: VictoryBody } : {}),
      responses: {
        200: { description: 'The petition in its new state', schema: PetitionEnvelope },
        409: { description: `The petition is not ${sourcesOf(definition.verb).join(' or ')}` },
      },
      async handler(ctx, { params, body }) {
        await run(ctx, params.id, definition, (body as { victory_message?: string } | undefined)?.victory_message);
      },
    }),
  );
}
