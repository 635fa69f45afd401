// The accountExport workflow behind core/account-exports' port: started once per export
// (REJECT_DUPLICATE); a failed start is a 503, so the transaction that recorded the export rolls back.
import type { AccountExportWorkflows } from '../core/account-exports/exports.ts';
import { accountExport, accountExportWorkflowId } from '../workflows/index.ts';
import { RallyEntityType, RallyUserId } from '../workflows/search-attributes.ts';
import type { Temporal } from './client.ts';
import { orUnavailable } from './unavailable.ts';

export function exportWorkflows(temporal: Temporal): AccountExportWorkflows {
  return {
    async startAccountExport(exportId, userId, linkTtlMs) {
      await orUnavailable(
        temporal.client.workflow.start(accountExport, {
          workflowId: accountExportWorkflowId(exportId),
          taskQueue: temporal.taskQueue,
          args: [{ exportId, linkTtlMs }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: RallyUserId, value: userId },
            { key: RallyEntityType, value: 'account_export' },
          ],
        }),
        'no export was started',
      );
    },
  };
}
