// Deletes expired OAuth codes, refresh tokens, access-token ids and the families nothing refers to
// any more. Started by the Temporal Schedule `purge-oauth-artifacts` (orchestration/schedules.ts) every
// hour; bounded batches through an activity, so no statement holds locks for long.
import { proxyActivities, log } from '@temporalio/workflow';
import type { OAuthActivities } from '../activities/oauth.ts';

const { purgeExpiredOAuthArtifacts } = proxyActivities<OAuthActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

const BATCH_SIZE = 2_000;
// Bounds one run; whatever is left waits for the next hourly run.
const MAX_BATCHES_PER_RUN = 100;

export async function purgeOAuthArtifacts(): Promise<{ deleted: number; batches: number }> {
  let deleted = 0;
  let batches = 0;
  while (batches < MAX_BATCHES_PER_RUN) {
    const count = await purgeExpiredOAuthArtifacts({ batchSize: BATCH_SIZE });
    deleted += count;
    batches += 1;
    if (count === 0) break;
  }
  log.info('purged expired OAuth artifacts', { deleted, batches });
  return { deleted, batches };
}
