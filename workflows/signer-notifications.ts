// Tells every signer of a petition about something (a victory, say), in keyset batches through an activity: one activity per thousand signers, never one event
// per signer. Each run does at most batchesPerRun batches, then continues as new, so even millions of signers keep every history small. Repeating a batch is
// harmless (the dedupeKey makes each notification unique). Started by the petition lifecycle workflow.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications.ts';
import type { SignerBatchInput } from '../core/notifications/create.ts';

const { notifySignerBatch } = proxyActivities<NotificationActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const DEFAULT_BATCH_SIZE = 1_000;
// About 6 history events per batch: 100 batches keep a run near 600 events, far below the limits.
const DEFAULT_BATCHES_PER_RUN = 100;

/** What to tell the signers (as each batch tells it), and where the run stands. */
export type NotifyPetitionSignersInput = Omit<SignerBatchInput, 'afterUserId' | 'limit'> & {
  /** Where the previous run stopped; absent on the first run. */
  afterUserId?: string | null;
  /** Carried across runs for the result. */
  notified?: number;
  batchSize?: number;
  batchesPerRun?: number;
};

export type NotifyPetitionSignersResult = { notified: number };

export async function notifyPetitionSigners(input: NotifyPetitionSignersInput): Promise<NotifyPetitionSignersResult> {
  const limit = input.batchSize ?? DEFAULT_BATCH_SIZE;
  let afterUserId = input.afterUserId ?? null;
  let notified = input.notified ?? 0;
  for (let batch = 0; batch < (input.batchesPerRun ?? DEFAULT_BATCHES_PER_RUN); batch += 1) {
    const result = await notifySignerBatch({
      petitionId: input.petitionId,
      afterUserId,
      limit,
      type: input.type,
      title: input.title,
      body: input.body,
      data: input.data,
      dedupeKey: input.dedupeKey,
      ...(input.optedInOnly ? { optedInOnly: true } : {}),
    });
    notified += result.inserted;
    if (result.seen < limit || result.lastUserId === null) return { notified };
    afterUserId = result.lastUserId;
  }
  return continueAsNew<typeof notifyPetitionSigners>({ ...input, afterUserId, notified });
}
