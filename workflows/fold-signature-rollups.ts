// Folds new signatures into the analytics rollups. Started every minute by the Temporal Schedule `fold-signature-rollups` (orchestration/schedules.ts); runs
// never overlap. A run folds at most BATCH_SIZE × MAX_BATCHES changes (a backlog drains over the next runs). The heartbeat timeout hands the work to another
// worker soon after one dies in the middle.
import { proxyActivities } from '@temporalio/workflow';
import type { AnalyticsActivities } from '../activities/analytics.ts';

const { foldSignatureRollups: foldBatches } = proxyActivities<AnalyticsActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', maximumAttempts: 5 },
});

export const BATCH_SIZE = 5_000;
export const MAX_BATCHES = 100;

export async function foldSignatureRollups(): Promise<{ folded: number; drained: boolean }> {
  return foldBatches({ batchSize: BATCH_SIZE, maxBatches: MAX_BATCHES });
}
