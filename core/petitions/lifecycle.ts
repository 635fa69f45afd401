// The API side of the petition workflow: start it at create, and send each transition as a
// Temporal Update. Update-with-start means a petition whose workflow is missing (imported data, a
// lost start) still transitions; the workflow's validator or activity answers a wrong state.
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { RallyPetitionId, RallyEntityType } from '../../workflows/search-attributes.ts';
import { petitionLifecycle, petitionWorkflowId, type TransitionRequest } from '../../workflows/petition-lifecycle.ts';
import type { PetitionStatus, TransitionResult } from './transitions.ts';
import type { UpdateDefinition } from '@temporalio/common';
import { Conflict, NotFound, Unavailable } from '../errors/domain-error.ts';
import { applicationFailureOf } from '../workflow-client/failures.ts';
import { petitionSummary } from '../workflow-client/summaries.ts';

export type LifecycleDependencies = { temporal: Client; taskQueue: string };

function startOptions(deps: LifecycleDependencies, petitionId: string, status: PetitionStatus) {
  return {
    workflowId: petitionWorkflowId(petitionId),
    taskQueue: deps.taskQueue,
    args: [{ petitionId, status }] as [{ petitionId: string; status: PetitionStatus }],
    typedSearchAttributes: [
      { key: RallyPetitionId, value: petitionId },
      { key: RallyEntityType, value: 'petition' },
    ],
  };
}

const unavailable = (cause: unknown) => new Unavailable('The workflow service cannot be reached right now; nothing was changed. Retry shortly.', { cause });

/** `title` names the petition in the Web UI (memo summary); a workflow started later shows its id. */
export async function startPetitionWorkflow(deps: LifecycleDependencies, petitionId: string, title: string): Promise<void> {
  await deps.temporal.workflow
    .start(petitionLifecycle, { ...startOptions(deps, petitionId, 'draft'), workflowIdReusePolicy: 'REJECT_DUPLICATE', memo: { summary: petitionSummary(title) } })
    .catch((error: unknown) => {
      throw unavailable(error);
    });
}

export async function transition(
  deps: LifecycleDependencies,
  update: UpdateDefinition<TransitionResult, [TransitionRequest]>,
  petitionId: string,
  currentStatus: PetitionStatus,
  request: TransitionRequest,
): Promise<TransitionResult> {
  const startWorkflowOperation = new WithStartWorkflowOperation(petitionLifecycle, {
    ...startOptions(deps, petitionId, currentStatus),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  try {
    return await deps.temporal.workflow.executeUpdateWithStart(update, { args: [request], startWorkflowOperation });
  } catch (error) {
    const failure = applicationFailureOf(error);
    if (failure?.type === 'InvalidTransition') throw new Conflict(failure.message, { code: 'invalid_transition' });
    if (failure?.type === 'PetitionNotFound') throw new NotFound('There is no such petition.');
    throw unavailable(error);
  }
}
