// The petition's workflows behind the ports of core/petitions/lifecycle.ts and core/decision-makers/queries.ts. The lifecycle workflow (id `petition-<id>`) is
// started at create and each transition is an update-with-start, so a petition whose workflow is missing still transitions. A round of milestone crossings
// is one signer fan-out. Decision makers are invited by their own workflow; their token's hears of a response.
import { createHash } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { DecisionMakerWorkflows } from '../core/decision-makers/queries.ts';
import type { SignerNotice } from '../core/notifications/create.ts';
import { Conflict, NotFound } from '../core/errors/domain-error.ts';
import type { PetitionWorkflows, TransitionRequest } from '../core/petitions/lifecycle.ts';
import type { PetitionEvent, PetitionStatus, TransitionResult } from '../core/petitions/transitions.ts';
// Each from its own module, not workflows/index.ts: the moderation activities transition petitions
// through this file, and the index would lead back to them through the moderation workflows' types.
import { decisionMakerInvitationWorkflowId, inviteDecisionMakers } from '../workflows/decision-maker-invitations.ts';
import {
  adminCloseUpdate,
  closeUpdate,
  holdForReviewUpdate,
  petitionDeletedSignal,
  petitionLifecycle,
  petitionWorkflowId,
  publishUpdate,
  releaseFromReviewUpdate,
  victoryUpdate,
} from '../workflows/petition-lifecycle.ts';
import { notifyPetitionSigners } from '../workflows/signer-notifications.ts';
import { respondedSignal, responseTokenWorkflowId } from '../workflows/response-token.ts';
import { RallyEntityType, RallyPetitionId } from '../workflows/search-attributes.ts';
import { promptly, type Temporal } from './client.ts';
import { applicationFailureOf } from './failures.ts';
import { milestoneRoundSummary, petitionSummary } from '../core/workflow-summaries.ts';
import { onceFor } from './start-once.ts';
import { bestEffort, orUnavailable, workflowServiceUnavailable } from './unavailable.ts';

const UPDATES = {
  publish: publishUpdate,
  close: closeUpdate,
  victory: victoryUpdate,
  holdForReview: holdForReviewUpdate,
  releaseFromReview: releaseFromReviewUpdate,
  adminClose: adminCloseUpdate,
} as const satisfies Record<PetitionEvent, UpdateDefinition<TransitionResult, [TransitionRequest]>>;

function lifecycleOptions(temporal: Temporal, petitionId: string, status: PetitionStatus) {
  return {
    workflowId: petitionWorkflowId(petitionId),
    taskQueue: temporal.taskQueue,
    args: [{ petitionId, status }] as [{ petitionId: string; status: PetitionStatus }],
    typedSearchAttributes: [
      { key: RallyPetitionId, value: petitionId },
      { key: RallyEntityType, value: 'petition' },
    ],
  };
}

// A wrong state is answered by the workflow's update validator or by its activity.
export function petitionWorkflows(temporal: Temporal): PetitionWorkflows {
  return {
    async startPetition(petitionId, title) {
      await orUnavailable(
        temporal.client.workflow.start(petitionLifecycle, {
          ...lifecycleOptions(temporal, petitionId, 'draft'),
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          memo: { summary: petitionSummary(title) },
        }),
        'nothing was changed',
      );
    },

    async transitionPetition(update, petitionId, currentStatus, request) {
      const startWorkflowOperation = new WithStartWorkflowOperation(petitionLifecycle, {
        ...lifecycleOptions(temporal, petitionId, currentStatus),
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      try {
        return await temporal.client.workflow.executeUpdateWithStart(UPDATES[update], { args: [request], startWorkflowOperation });
      } catch (error) {
        const failure = applicationFailureOf(error);
        if (failure?.type === 'InvalidTransition') throw new Conflict(failure.message, { code: 'invalid_transition' });
        if (failure?.type === 'PetitionNotFound') throw new NotFound('There is no such petition.');
        throw workflowServiceUnavailable(error, 'nothing was changed');
      }
    },

    async petitionDeleted(petitionId) {
      await bestEffort(temporal.client.workflow.getHandle(petitionWorkflowId(petitionId)).signal(petitionDeletedSignal));
    },
  };
}

/**
 * The outbox dispatcher's round of milestone crossings that signers listen for (worker/event-dispatcher.ts): one fan-out workflow for
 * the round, named by the crossings it tells, so that a round started again after a crash is the same workflow ("already started").
 */
export function milestoneSignerWorkflows(temporal: Temporal) {
  return {
    async tellMilestoneSigners(notices: readonly SignerNotice[]): Promise<void> {
      const [first, ...then] = notices;
      if (!first) return;
      const round = createHash('sha256')
        .update(notices.map((notice) => notice.dedupeKey).join('\n'))
        .digest('hex')
        .slice(0, 32);
      await promptly(temporal, () =>
        temporal.client.workflow.start(notifyPetitionSigners, {
          ...onceFor(temporal, `signer-notifications-milestones-${round}`, 'milestone_round'),
          args: [{ ...first, ...(then.length > 0 ? { then } : {}) }],
          memo: { summary: milestoneRoundSummary(notices) },
        }),
      ).catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
    },
  };
}

export function decisionMakerWorkflows(temporal: Temporal): DecisionMakerWorkflows {
  return {
    async inviteDecisionMaker(petitionId, decisionMakerId) {
      await orUnavailable(
        temporal.client.workflow.start(inviteDecisionMakers, {
          workflowId: decisionMakerInvitationWorkflowId(decisionMakerId),
          taskQueue: temporal.taskQueue,
          args: [{ petitionId, decisionMakerIds: [decisionMakerId] }],
          typedSearchAttributes: [
            { key: RallyPetitionId, value: petitionId },
            { key: RallyEntityType, value: 'petition' },
          ],
        }),
        'nothing was added',
      );
    },

    async responseGiven(tokenId) {
      await bestEffort(temporal.client.workflow.getHandle(responseTokenWorkflowId(tokenId)).signal(respondedSignal));
    },

    async responseTokenWithdrawn(tokenId) {
      await bestEffort(temporal.client.workflow.getHandle(responseTokenWorkflowId(tokenId)).cancel());
    },
  };
}
