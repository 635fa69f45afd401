// A person's data export (issue 46; id `account-export-<export id>`): build and store the archive,
// email the once-only link, then wait out the link's validity on a durable timer and remove the
// archive, so nothing of the person stays in storage longer than the link can fetch it.
import { ActivityFailure, proxyActivities, sleep, type RetryPolicy } from '@temporalio/workflow';
import type { AccountExportActivities } from '../activities/account-exports.ts';

const retry: RetryPolicy = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' };
// Building reads every table of one person; a handful of attempts, then the export is marked failed.
const { writeAccountExport } = proxyActivities<AccountExportActivities>({
  startToCloseTimeout: '5 minutes',
  // It heartbeats while it builds: a worker killed mid-build is retried within seconds.
  heartbeatTimeout: '10 seconds',
  retry: { ...retry, maximumAttempts: 5 },
});
const { mailAccountExportLink, markAccountExportFailed, removeAccountExport } = proxyActivities<AccountExportActivities>({
  startToCloseTimeout: '1 minute',
  retry,
});

export type AccountExportInput = { exportId: string; linkTtlMs: number };
export type AccountExportOutcome = { exportId: string; outcome: 'ready' | 'failed' | 'gone' };

export const accountExportWorkflowId = (exportId: string) => `account-export-${exportId}`;

export async function accountExport({ exportId, linkTtlMs }: AccountExportInput): Promise<AccountExportOutcome> {
  try {
    if (!(await writeAccountExport({ exportId }))) return { exportId, outcome: 'gone' };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await markAccountExportFailed({ exportId });
    await removeAccountExport({ exportId });
    return { exportId, outcome: 'failed' };
  }
  const mailed = await mailAccountExportLink({ exportId, linkTtlMs });
  if (mailed) await sleep(linkTtlMs);
  await removeAccountExport({ exportId });
  return { exportId, outcome: mailed ? 'ready' : 'gone' };
}
