// What the accountDeletion workflow does, as thin adapters over core/account-deletion/erasure.ts. Every call is
// one bounded batch in its own transaction, safe to repeat after a crash.
import type { DatabasePool } from 'slonik';
import { eraseBatch, eraseMedia, finishErasure } from '../core/account-deletion/erasure.ts';
import type { ErasureStep } from '../core/vocabulary.ts';
import type { MediaStorage } from '../platform/storage/media-storage.ts';

export function createAccountDeletionActivities({ db, storage }: { db: DatabasePool; storage: MediaStorage }) {
  return {
    /** One batch of one step; returns how many rows it changed (fewer than batchSize: the step is done). */
    eraseAccountBatch({ userId, step, batchSize }: { userId: string; step: ErasureStep; batchSize: number }): Promise<number> {
      return step === 'media' ? eraseMedia(db, storage, userId, batchSize) : eraseBatch(db, step, userId, batchSize);
    },
    /** Re-scans for anything written meanwhile and removes the user row; false when it was already gone. */
    finishAccountErasure: ({ userId }: { userId: string }): Promise<boolean> => finishErasure(db, userId),
  };
}

export type AccountDeletionActivities = ReturnType<typeof createAccountDeletionActivities>;
