// One workflow per petition (id `petition-<uuid>`), the single owner of its state machine: draft → active (publish) → closed | victory. Each transition is a
// Temporal Update whose validator answers a wrong state (the API's 409) and whose handler commits the change and its event through an activity. Signatures
// never touch this workflow, so its history stays small whatever the petition's size.
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import type { TransitionRequest } from '../core/petitions/lifecycle.ts';
import {
  ApplicationFailure,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  allHandlersFinished,
  workflowInfo,
} from '@temporalio/workflow';
import type { PetitionActivities, PetitionStatus, TransitionResult } from '../activities/petitions.ts';
import { EVENT_PARTICIPLES, isTerminal, sourcesOf, transitionOf, type PetitionEvent } from '../core/petitions/transitions.ts';
import { handleMilestoneCrossings } from './petition-milestones.ts';
import { inviteDecisionMakers } from './decision-maker-invitations.ts';
import { notifyPetitionSigners } from './signer-notifications.ts';

const { transitionPetition } = proxyActivities<PetitionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [FAILURE_TYPES.petitionNotFound, FAILURE_TYPES.invalidTransition],
  },
});

export const publishUpdate = defineUpdate<TransitionResult, [TransitionRequest]>('publish');
export const closeUpdate = defineUpdate<TransitionResult, [TransitionRequest]>('close');
export const victoryUpdate = defineUpdate<TransitionResult, [TransitionRequest]>('victory');
export const holdForReviewUpdate = defineUpdate<TransitionResult, [TransitionRequest]>('holdForReview');
export const releaseFromReviewUpdate = defineUpdate<TransitionResult, [TransitionRequest]>('releaseFromReview');
export const adminCloseUpdate = defineUpdate<TransitionResult, [TransitionRequest]>('adminClose');
export const petitionDeletedSignal = defineSignal('petitionDeleted');
export const statusQuery = defineQuery<PetitionStatus>('status');

export const petitionWorkflowId = (petitionId: string) => `petition-${petitionId}`;
export const INVALID_TRANSITION = FAILURE_TYPES.invalidTransition;

// Moderation adds, behind this patch (histories recorded before it replay unchanged): active → under_review
// (hold for review), under_review → active (release), and an admin close from active or under_review.
const MODERATION_TRANSITIONS = 'moderation-transitions';

export type PetitionLifecycleInput = { petitionId: string; status: PetitionStatus };

// The starter passes the status it read, so validators can answer from the very first task; the
// activity re-checks it inside its transaction, so a stale value can only cause a refusal.
export async function petitionLifecycle({ petitionId, status: initialStatus }: PetitionLifecycleInput): Promise<PetitionStatus | 'deleted'> {
  let status: PetitionStatus = initialStatus;
  let transitionInFlight = false;
  let deleted = false;
  setHandler(statusQuery, () => status);
  setHandler(petitionDeletedSignal, () => {
    deleted = true;
  });

  // Rejects in the validator, before anything is written to history: a wrong state is the caller's 409.
  // The moves themselves are the table's (core/petitions/transitions.ts).
  const requireStatus = (event: PetitionEvent) => (_request: TransitionRequest) => {
    if (transitionInFlight || !transitionOf(event, status)) {
      const message =
        `Only a ${sourcesOf(event).join(' or ')} petition can be ${EVENT_PARTICIPLES[event]}; this one is ` +
        `${transitionInFlight ? 'changing state' : status}.`;
      throw ApplicationFailure.create({ type: INVALID_TRANSITION, nonRetryable: true, message });
    }
  };
  const transition = async (event: PetitionEvent, request: TransitionRequest) => {
    // The validator accepted this event from the current status (validators do not run on replay:
    // the history that accepted it holds the same status here).
    const { from, to } = transitionOf(event, status)!;
    transitionInFlight = true;
    try {
      const result = await transitionPetition({ petitionId, from, to, actor: request.actor, victoryMessage: request.victoryMessage, audit: request.audit });
      status = to;
      return result;
    } finally {
      transitionInFlight = false;
    }
  };
  const handle = (update: typeof publishUpdate, event: PetitionEvent) =>
    setHandler(update, (request) => transition(event, request), { validator: requireStatus(event) });
  handle(publishUpdate, 'publish');
  handle(closeUpdate, 'close');
  handle(victoryUpdate, 'victory');
  handleMilestoneCrossings(petitionId, followUp);
  if (patched(MODERATION_TRANSITIONS)) {
    handle(holdForReviewUpdate, 'holdForReview');
    handle(releaseFromReviewUpdate, 'releaseFromReview');
    handle(adminCloseUpdate, 'adminClose');
  }

  await condition(() => status === 'active' || isTerminal(status) || deleted);
  if (status === 'active') {
    await startChild(inviteDecisionMakers, {
      ...followUp(`decision-maker-invitations-${petitionId}`, `Invite the decision makers of petition ${petitionId}`),
      args: [{ petitionId }],
    });
    await condition(() => isTerminal(status) || deleted);
  }
  if (status === 'victory') {
    await startChild(notifyPetitionSigners, {
      ...followUp(`signer-notifications-victory-${petitionId}`, `Tell the signers of petition ${petitionId} it won`),
      args: [
        {
          petitionId,
          type: 'petition.victory',
          title: 'A petition you signed won',
          body: 'The petition you signed has been marked a victory.',
          data: { petition_id: petitionId },
          dedupeKey: `victory:${petitionId}`,
        },
      ],
    });
  }
  await condition(allHandlersFinished);
  return deleted ? 'deleted' : status;
}

// Follow-ups run as abandoned children: they outlive this workflow and keep their own histories.
// Started by function reference: the child's workflow type is the function's name, as recorded in
// the histories of test/histories.
/**
 * A child that outlives its petition's workflow; `summary` is its memo line in the Web UI.
 * What follows a transition over time is started from here: decision makers are invited after publish, signers
 * are notified in batches after a victory (child workflows, so each keeps its own history).
 */
function followUp(workflowId: string, summary: string) {
  return { workflowId, parentClosePolicy: ParentClosePolicy.ABANDON, taskQueue: workflowInfo().taskQueue, memo: { summary } };
}
