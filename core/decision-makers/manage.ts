// What the managers of a petition do with its decision makers: add one (invited at once when the petition is active: workflow `decision-maker-invitation-<id>`,
// started inside the insert's transaction, so a failed start adds nothing; within the budgets of invitation-budget.ts), remove one, publish a response they
// gave.
import type { DatabasePool } from 'slonik';
import { holdUntilCommit } from '../../db/commit-barrier.ts';
import { Conflict, ensure, NotFound } from '../errors/domain-error.ts';
import { recordEvent, type Actor } from '../events/record-event.ts';
import type { Viewer } from '../petitions/policy.ts';
import { assertInvitationBudget, logInvitation } from './invitation-budget.ts';
import { invitationBarrier } from './invitations.ts';
import { toResponse } from './presenter.ts';
import { assertCreator, countDecisionMakers, findResponse, insertDecisionMaker, markResponsePublished, type DecisionMakerDependencies } from './queries.ts';

// As many as a petition may name when it is created.
export const MAX_DECISION_MAKERS = 50;

export async function addDecisionMaker(
  deps: DecisionMakerDependencies,
  viewer: Viewer,
  petitionId: string,
  person: { name: string; title: string; email: string },
) {
  return deps.db.transaction(async (tx) => {
    const petition = await assertCreator(tx, viewer, petitionId, { lock: true });
    ensure((await countDecisionMakers(tx, petitionId)) < MAX_DECISION_MAKERS, Conflict, `A petition names at most ${MAX_DECISION_MAKERS} decision makers.`, {
      code: 'decision_maker_limit',
    });
    // Only an active petition mails at once; a draft's decision makers are invited (and logged) at publish.
    if (petition.status === 'active') await assertInvitationBudget(tx, { petitionId, creatorId: petition.creator_id, email: person.email });
    const row = await insertDecisionMaker(tx, petitionId, person);
    if (petition.status === 'active') {
      await logInvitation(tx, row.id);
      await holdUntilCommit(tx, invitationBarrier(petitionId));
      await deps.workflows.inviteDecisionMaker(petitionId, row.id);
    }
    return row;
  });
}

/** Publishes a response on the petition page; emits response.published. */
export async function publishResponse(db: DatabasePool, viewer: Viewer, actor: Actor, petitionId: string, responseId: string) {
  return db.transaction(async (tx) => {
    await assertCreator(tx, viewer, petitionId);
    const response = await findResponse(tx, petitionId, responseId);
    ensure(response, NotFound, `This petition has no response ${responseId}.`);
    ensure(!response.published_at, Conflict, 'This response is already published.', { code: 'response_already_published' });
    const row = await markResponsePublished(tx, response.id);
    await recordEvent(tx, { type: 'response.published', actor, petitionId, data: toResponse(row) });
    return row;
  });
}
