// Moderation's workflows behind the ports core/ declares: a target's moderation workflow (id `moderation-<type>-<id>`, one run per round of reports), the timer
// that ends a timed suspension, the warning email, bulk signature invalidation, and the running-workflow counts of the admin metrics.
import { WithStartWorkflowOperation } from '@temporalio/client';
import { Conflict, NotFound } from '../core/errors/domain-error.ts';
import type { RunningWorkflows } from '../core/moderation/metrics.ts';
import type { ModerationTarget } from '../core/moderation/reports.ts';
import type { WarningWorkflows } from '../core/moderation/warnings.ts';
import type { ModerationWorkflows } from '../core/moderation/workflow-port.ts';
import type { InvalidationWorkflows } from '../core/signatures/invalidation.ts';
import type { SuspensionWorkflows } from '../core/users/suspension.ts';
import * as workflows from '../workflows/index.ts';
import {
  decideUpdate,
  deliverWarningEmail,
  invalidateSignatures,
  moderateTarget,
  moderationWorkflowId,
  reportedSignal,
  userSuspension,
} from '../workflows/index.ts';
import { RallyEntityType, RallyModerationTarget, RallyPetitionId, RallyUserId } from '../workflows/search-attributes.ts';
import { applicationFailureOf } from './failures.ts';
import type { Temporal } from './client.ts';
import { orUnavailable, workflowServiceUnavailable } from './unavailable.ts';
import { onceFor } from './start-once.ts';

// Workflow functions, not the id helpers exported beside them.
const WORKFLOW_TYPES = Object.entries(workflows)
  .filter(([name, value]) => typeof value === 'function' && !name.endsWith('WorkflowId'))
  .map(([name]) => name);

function moderationOptions(temporal: Temporal, target: ModerationTarget) {
  return {
    workflowId: moderationWorkflowId(target),
    taskQueue: temporal.taskQueue,
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

export function moderationWorkflows(
  temporal: Temporal,
): ModerationWorkflows & SuspensionWorkflows & WarningWorkflows & InvalidationWorkflows & RunningWorkflows {
  return {
    async reportFiled(target, reportId) {
      await orUnavailable(
        temporal.client.workflow.signalWithStart(moderateTarget, {
          ...moderationOptions(temporal, target),
          signal: reportedSignal,
          signalArgs: [{ reportId }],
        }),
      );
    },

    async decide(target, decision) {
      const startWorkflowOperation = new WithStartWorkflowOperation(moderateTarget, moderationOptions(temporal, target));
      try {
        return await temporal.client.workflow.executeUpdateWithStart(decideUpdate, { args: [decision], startWorkflowOperation });
      } catch (error) {
        const failure = applicationFailureOf(error);
        if (!failure?.type?.startsWith('DomainError.')) throw workflowServiceUnavailable(error);
        const code = failure.type.slice('DomainError.'.length);
        if (code === 'not_found') throw new NotFound(failure.message);
        throw new Conflict(failure.message, { code });
      }
    },

    // A newer suspension replaces the older timer (TERMINATE_EXISTING); the timer's own call is a
    // no-op if the suspension changed meanwhile.
    async endSuspensionAt({ userId, suspendedAt, until }) {
      await orUnavailable(
        temporal.client.workflow.start(userSuspension, {
          workflowId: `user-suspension-${userId}`,
          taskQueue: temporal.taskQueue,
          args: [{ userId, suspendedAt, until }],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          workflowIdConflictPolicy: 'TERMINATE_EXISTING',
          typedSearchAttributes: [
            { key: RallyUserId, value: userId },
            { key: RallyEntityType, value: 'user' },
          ],
        }),
      );
    },

    async emailWarning(warningId, userId) {
      // One email per warning, ever: a second start of the same id is refused.
      const once = onceFor(temporal, `warning-email-${warningId}`, 'warning', [{ key: RallyUserId, value: userId }]);
      await orUnavailable(temporal.client.workflow.start(deliverWarningEmail, { ...once, args: [{ warningId }] }));
    },

    async invalidateSignatures(input) {
      const tags = [{ key: RallyPetitionId, value: input.petitionId }];
      const once = onceFor(temporal, `signature-invalidation-${input.invalidationId}`, 'signature_invalidation', tags);
      const handle = await orUnavailable(temporal.client.workflow.start(invalidateSignatures, { ...once, args: [input] }), 'nothing was changed');
      return {
        ended: handle.result().then(
          () => undefined,
          () => undefined,
        ),
      };
    },

    /** Null when Temporal's visibility store cannot be reached: the other counts still answer. */
    async countRunningWorkflows() {
      try {
        const counts = await Promise.all(
          WORKFLOW_TYPES.map(
            async (type) => [type, (await temporal.client.workflow.count(`WorkflowType = "${type}" AND ExecutionStatus = "Running"`)).count] as const,
          ),
        );
        return Object.fromEntries(counts.filter(([, count]) => count > 0));
      } catch {
        return null;
      }
    },
  };
}
