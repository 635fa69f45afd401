// The account-deletion workflow (id `account-deletion-<user id>`), behind core/account-deletion/request.ts's
// port. Started once per person: asking again while it runs finds the same run; a failed run may be
// started again (ALLOW_DUPLICATE_FAILED_ONLY). A failed start is a 503 that rolls the request back.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { AccountDeletionWorkflows } from '../core/account-deletion/request.ts';
import { accountDeletion, accountDeletionWorkflowId } from '../workflows/index.ts';
import { RallyEntityType, RallyUserId } from '../workflows/search-attributes.ts';
import type { Temporal } from './client.ts';
import { orUnavailable } from './unavailable.ts';

const RUN_STATUS = { RUNNING: 'running', COMPLETED: 'completed' } as const;

export function accountDeletionWorkflows(temporal: Temporal): AccountDeletionWorkflows {
  return {
    async startAccountDeletion(userId, { closePetitions }) {
      const started = temporal.client.workflow
        .start(accountDeletion, {
          workflowId: accountDeletionWorkflowId(userId),
          taskQueue: temporal.taskQueue,
          args: [closePetitions ? { userId, closePetitions } : { userId }],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
          typedSearchAttributes: [
            { key: RallyUserId, value: userId },
            { key: RallyEntityType, value: 'user' },
          ],
        })
        .catch((error: unknown) => {
          if (error instanceof WorkflowExecutionAlreadyStartedError) return undefined;
          throw error;
        });
      await orUnavailable(started, 'nothing was changed');
    },

    async accountDeletionProgress(userId) {
      const workflowId = accountDeletionWorkflowId(userId);
      try {
        const run = await temporal.client.workflow.getHandle(workflowId).describe();
        const status = RUN_STATUS[run.status.name as keyof typeof RUN_STATUS] ?? 'failed';
        return { workflowId, run: { status, startedAt: run.startTime.toISOString(), closedAt: run.closeTime?.toISOString() ?? null } };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { workflowId, run: null };
        throw error;
      }
    },
  };
}
