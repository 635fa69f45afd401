// The API side of the moderation workflow (one per reported target, id `moderation-<type>-<id>`):
// each new report is a signal-with-start, each reviewer's decision an update-with-start. Both use
// the running workflow when there is one and start a new run otherwise, so a target's reports,
// its hiding and its decisions form one inspectable history per round of reports.
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { Conflict, NotFound, Unavailable } from '../errors/domain-error.ts';
import { applicationFailureOf } from '../workflow-client/failures.ts';
import { RallyEntityType, RallyModerationTarget } from '../../workflows/search-attributes.ts';
import { decideUpdate, moderateTarget, moderationWorkflowId, reportedSignal } from '../../workflows/moderation.ts';
import type { DecisionOutcome, ModerationDecision } from './actions.ts';
import type { ModerationTarget } from './reports.ts';

export type ModerationWorkflowDependencies = { temporal: Client; taskQueue: string };

function startOptions(deps: ModerationWorkflowDependencies, target: ModerationTarget) {
  return {
    workflowId: moderationWorkflowId(target),
    taskQueue: deps.taskQueue,
    args: [{ target }] as [{ target: ModerationTarget }],
    // A finished round of reports does not stop a new one: a later report starts a new run.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    typedSearchAttributes: [
      { key: RallyModerationTarget, value: `${target.type}:${target.id}` },
      { key: RallyEntityType, value: target.type },
    ],
  };
}

const unavailable = (cause: unknown) => new Unavailable('The workflow service cannot be reached right now. Retry shortly.', { cause });

export async function signalReport(deps: ModerationWorkflowDependencies, target: ModerationTarget, reportId: string): Promise<void> {
  await deps.temporal.workflow
    .signalWithStart(moderateTarget, { ...startOptions(deps, target), signal: reportedSignal, signalArgs: [{ reportId }] })
    .catch((error: unknown) => {
      throw unavailable(error);
    });
}

/** Applies a reviewer's decision through the target's workflow; the activity's refusals come back as domain errors. */
export async function decide(deps: ModerationWorkflowDependencies, target: ModerationTarget, decision: ModerationDecision): Promise<DecisionOutcome> {
  const startWorkflowOperation = new WithStartWorkflowOperation(moderateTarget, startOptions(deps, target));
  try {
    return await deps.temporal.workflow.executeUpdateWithStart(decideUpdate, { args: [decision], startWorkflowOperation });
  } catch (error) {
    const failure = applicationFailureOf(error);
    if (!failure?.type?.startsWith('DomainError.')) throw unavailable(error);
    const code = failure.type.slice('DomainError.'.length);
    if (code === 'not_found') throw new NotFound(failure.message);
    throw new Conflict(failure.message, { code });
  }
}
