// Invalidates (or, in a dry run, counts) a petition's signatures matching a fraud filter (id `signature-invalidation-<invalidation id>`): keyset batches, each
// its own short transaction, so a petition with a million signatures is never locked for long; then the count is reconciled exactly and one audit row written.
// Long runs continue as new with their cursor.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ModerationActivities } from '../activities/moderation.ts';

const { invalidateSignatureBatch, finishSignatureInvalidation } = proxyActivities<ModerationActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

type FinishInput = Parameters<ModerationActivities['finishSignatureInvalidation']>[0];
type BatchInput = Parameters<ModerationActivities['invalidateSignatureBatch']>[0];

export type InvalidationInput = {
  invalidationId: string;
  petitionId: string;
  filter: BatchInput['filter'];
  dryRun: boolean;
  audit: FinishInput['audit'];
  /** Where a continued run picks up. */
  after?: [string, string] | null;
  matched?: number;
};

export const BATCH_SIZE = 1_000;
export const DRY_RUN_BATCH_SIZE = 5_000;

export async function invalidateSignatures(input: InvalidationInput): Promise<{ invalidationId: string; matched: number; signatureCount: number | null }> {
  const size = input.dryRun ? DRY_RUN_BATCH_SIZE : BATCH_SIZE;
  let after = input.after ?? null;
  let matched = input.matched ?? 0;
  for (;;) {
    const batch = await invalidateSignatureBatch({
      invalidationId: input.invalidationId,
      petitionId: input.petitionId,
      filter: input.filter,
      after,
      size,
      dryRun: input.dryRun,
    });
    matched += batch.matched;
    if (batch.scanned < size || !batch.after) break;
    after = batch.after;
    if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof invalidateSignatures>({ ...input, after, matched });
  }
  const finished = await finishSignatureInvalidation({ invalidationId: input.invalidationId, matched, dryRun: input.dryRun, audit: input.audit });
  return { invalidationId: input.invalidationId, matched, signatureCount: finished.signature_count_after };
}
