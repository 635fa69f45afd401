// Deletes stored Idempotency-Key answers once their 24 hours are over, rate-limit buckets nobody has used for an hour, and expired authentication records
// (login failures, refresh tokens). Started by the Temporal Schedule `purge-idempotency-keys` (orchestration/schedules.ts) every hour; each run deletes in
// bounded batches through an activity so no single statement holds locks for long.
import { proxyActivities, log, patched } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';

const { deleteExpiredIdempotencyKeys, deleteIdleRateLimitBuckets, deleteExpiredAuthRecords } = proxyActivities<MaintenanceActivities>({
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
  // Added later still: login failures and attempts, expired refresh tokens (bounded like the keys).
  if (patched('purge-expired-auth-records')) {
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      if ((await deleteExpiredAuthRecords({ batchSize: PURGE_BATCH_SIZE })) < PURGE_BATCH_SIZE) break;
    }
  }
  log.info('purged expired idempotency keys', { deleted, batches });
  return { deleted, batches };
}
