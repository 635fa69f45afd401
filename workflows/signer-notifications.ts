// Tells every signer of a petition about something (a victory, say), in keyset batches through an activity: one activity per thousand signers, never one event
// per signer. Each run does at most batchesPerRun batches, then continues as new, so even millions of signers keep every history small. Repeating a batch is
// harmless (the dedupeKey makes each notification unique). Started by the petition lifecycle workflow, and by the outbox dispatcher for a round of milestones.
import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications.ts';
import type { SignerBatchInput, SignerNotice } from '../core/notifications/create.ts';

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
  /**
   * Notices told after this one, each to the signers of its own petition, by the same workflow: a round of milestone crossings is one
   * workflow, not one per crossing. Absent in histories recorded before it, which replay as before.
   */
  then?: SignerNotice[];
};

export type NotifyPetitionSignersResult = { notified: number };

export async function notifyPetitionSigners(input: NotifyPetitionSignersInput): Promise<NotifyPetitionSignersResult> {
  const limit = input.batchSize ?? DEFAULT_BATCH_SIZE;
  const { then: _told, ...first } = input;
  let notice: NotifyPetitionSignersInput = first;
  let waiting = input.then ?? [];
  let afterUserId = input.afterUserId ?? null;
  let notified = input.notified ?? 0;
  for (let batch = 0; batch < (input.batchesPerRun ?? DEFAULT_BATCHES_PER_RUN); batch += 1) {
    const result = await notifySignerBatch({
      petitionId: notice.petitionId,
      afterUserId,
      limit,
      type: notice.type,
      title: notice.title,
      body: notice.body,
      data: notice.data,
      dedupeKey: notice.dedupeKey,
      ...(notice.optedInOnly ? { optedInOnly: true } : {}),
    });
    notified += result.inserted;
    if (result.seen === limit && result.lastUserId !== null) {
      afterUserId = result.lastUserId;
      continue;
    }
    const [next, ...rest] = waiting;
    if (!next) return { notified };
    notice = { ...next, batchSize: input.batchSize, batchesPerRun: input.batchesPerRun };
    waiting = rest;
    afterUserId = null;
  }
  return continueAsNew<typeof notifyPetitionSigners>({ ...notice, ...(waiting.length > 0 ? { then: waiting } : {}), afterUserId, notified });
}
