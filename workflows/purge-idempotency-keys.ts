// Deletes stored Idempotency-Key answers once their 24 hours are over, and rate-limit buckets
// nobody has used for an hour. Started by the Temporal
// Schedule `purge-idempotency-keys` (worker/schedules.ts) every hour; each run deletes in bounded
// batches through an activity so no single statement holds locks for long.
import { proxyActivities, log, patched } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';

const { deleteExpiredIdempotencyKeys, deleteIdleRateLimitBuckets } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

export const PURGE_BATCH_SIZE = 5_000;
// Bounds one run; whatever is left waits for the next hourly run.
const MAX_BATCHES_PER_RUN = 200;

export type PurgeResult = { deleted: number; batches: number };

export async function purgeIdempotencyKeys(): Promise<PurgeResult> {
  let deleted = 0;
  let batches = 0;
  while (batches < MAX_BATCHES_PER_RUN) {
    const count = await deleteExpiredIdempotencyKeys({ batchSize: PURGE_BATCH_SIZE });
    deleted += count;
    batches += 1;
    if (count < PURGE_BATCH_SIZE) break;
  }
  // Added after the first release: `patched` keeps runs recorded before it replayable.
  if (patched('purge-idle-rate-limit-buckets')) await deleteIdleRateLimitBuckets();
  log.info('purged expired idempotency keys', { deleted, batches });
  return { deleted, batches };
}
