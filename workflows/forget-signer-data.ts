// Strips the signers' details of petitions closed longer ago than RALLY_SIGNER_DATA_RETENTION (issue
// 46). Started by the Temporal Schedule `forget-signer-data` (orchestration/schedules.ts) every hour; keyset
// batches through an activity, so no statement holds locks for long and a crash resumes where it was.
import { log, proxyActivities } from '@temporalio/workflow';
import type { SignerDataActivities } from '../activities/signer-data.ts';

const { petitionsDueForSignerDataDeletion, stripSignerDataBatch, markSignerDataDeleted } = proxyActivities<SignerDataActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute' },
});

const BATCH_SIZE = 2_000;
// Bounds one run's history; a petition left half done is finished by the next hourly run.
const MAX_BATCHES_PER_RUN = 500;
const PETITIONS_PER_RUN = 20;

export async function forgetSignerData(): Promise<{ petitions: number; stripped: number; batches: number }> {
  let stripped = 0;
  let batches = 0;
  let petitions = 0;
  for (const petitionId of await petitionsDueForSignerDataDeletion({ limit: PETITIONS_PER_RUN })) {
    let after: string | null = null;
    for (;;) {
      if (batches >= MAX_BATCHES_PER_RUN) {
        log.info('forgot signer data, more left for the next run', { petitions, stripped, batches });
        return { petitions, stripped, batches };
      }
      const batch: { stripped: number; next: string | null } = await stripSignerDataBatch({ petitionId, after, batchSize: BATCH_SIZE });
      batches += 1;
      stripped += batch.stripped;
      if (batch.stripped < BATCH_SIZE) break;
      after = batch.next;
    }
    await markSignerDataDeleted({ petitionId });
    petitions += 1;
  }
  log.info('forgot signer data', { petitions, stripped, batches });
  return { petitions, stripped, batches };
}
