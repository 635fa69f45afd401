// The accountExport workflow behind core/account-exports' port: started once per export
// (REJECT_DUPLICATE); a failed start is a 503, so the transaction that recorded the export rolls back.
import type { AccountExportWorkflows } from '../core/account-exports/exports.ts';
import { accountExport, accountExportWorkflowId } from '../workflows/index.ts';
import { RallyUserId } from '../workflows/search-attributes.ts';
import type { Temporal } from './client.ts';
import { onceFor } from './start-once.ts';
import { orUnavailable } from './unavailable.ts';

export function exportWorkflows(temporal: Temporal): AccountExportWorkflows {
  return {
    async startAccountExport(exportId, userId, linkTtlMs) {
      const tags = [{ key: RallyUserId, value: userId }];
      const once = onceFor(temporal, accountExportWorkflowId(exportId), 'account_export', tags);
      await orUnavailable(temporal.client.workflow.start(accountExport, { ...once, args: [{ exportId, linkTtlMs }] }), 'no export was started');
    },
  };
}
