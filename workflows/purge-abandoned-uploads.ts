// Removes uploads never confirmed within a day, their stored originals included (core/media/abandoned.ts).
// Started by the Temporal Schedule `purge-abandoned-uploads` (orchestration/schedules.ts) every hour, in
// bounded batches through an activity so no transaction stays open for long.
import { log, proxyActivities } from '@temporalio/workflow';
import type { MediaActivities } from '../activities/media.ts';

const { removeAbandonedUploads } = proxyActivities<MediaActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

const BATCH_SIZE = 200;
// Bounds one run; whatever is left waits for the next hourly run.
const MAX_BATCHES_PER_RUN = 100;

export async function purgeAbandonedUploads(): Promise<{ removed: number; batches: number }> {
  let removed = 0;
  let batches = 0;
  while (batches < MAX_BATCHES_PER_RUN) {
    const count = await removeAbandonedUploads({ batchSize: BATCH_SIZE });
    removed += count;
    batches += 1;
    if (count < BATCH_SIZE) break;
  }
  log.info('removed abandoned uploads', { removed, batches });
  return { removed, batches };
}
