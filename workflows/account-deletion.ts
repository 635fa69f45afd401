// Deleting an account (id `account-deletion-<user id>`, started by orchestration/ once the request has revoked every credential): each erasure step in bounded
// batches until a batch comes back short, then the last step re-scans for anything written meanwhile and removes the user row, and the confirmation goes to the
// address sealed before the first step. Every activity is idempotent, so a run resumed after a worker crash repeats at most one batch.
import { defineQuery, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AccountDeletionActivities } from '../activities/account-deletion.ts';
import { ERASURE_STEPS, type ErasureStep } from '../core/vocabulary.ts';

const { sealAccountDeletionAddress, closeAccountPetitions, eraseAccountBatch, finishAccountErasure, mailAccountDeletionConfirmation } =
  proxyActivities<AccountDeletionActivities>({
    startToCloseTimeout: '2 minutes',
    // Each call heartbeats while it runs: a worker killed mid-batch is retried within seconds.
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

export const accountDeletionWorkflowId = (userId: string) => `account-deletion-${userId}`;

/** `closePetitions`: the creator chose to close their active petitions rather than leave them published. */
export type AccountDeletionInput = { userId: string; batchSize?: number; closePetitions?: boolean };
export type AccountDeletionProgress = { step: ErasureStep | 'finishing' | 'done'; erased: number };

export const deletionProgressQuery = defineQuery<AccountDeletionProgress>('deletionProgress');

const DEFAULT_BATCH_SIZE = 500;

export async function accountDeletion({
  userId,
  batchSize = DEFAULT_BATCH_SIZE,
  closePetitions = false,
}: AccountDeletionInput): Promise<AccountDeletionProgress> {
  const progress: AccountDeletionProgress = { step: ERASURE_STEPS[0], erased: 0 };
  setHandler(deletionProgressQuery, () => progress);
  // Runs started before the confirmation email existed replay without it.
  const sealedAddress = patched('account-deletion-confirmation') ? await sealAccountDeletionAddress({ userId }) : null;
  // Only runs that asked for it call this (none did before it existed), so no patch is needed.
  if (closePetitions) await closeAccountPetitions({ userId });
  for (const step of ERASURE_STEPS) {
    progress.step = step;
    for (;;) {
      const count = await eraseAccountBatch({ userId, step, batchSize });
      progress.erased += count;
      if (count < batchSize) break;
    }
  }
  progress.step = 'finishing';
  await finishAccountErasure({ userId });
  if (sealedAddress !== null) await mailAccountDeletionConfirmation({ sealedAddress });
  progress.step = 'done';
  return progress;
}
