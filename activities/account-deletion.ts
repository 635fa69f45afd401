// What the accountDeletion workflow does, as thin adapters over core/account-deletion/erasure.ts. Every call is
// one bounded batch in its own transaction, safe to repeat after a crash, heartbeating while it runs.
import type { DatabasePool } from 'slonik';
import { deletionAddressBox, deletionConfirmation, sealedDeletionAddress } from '../core/account-deletion/confirmation.ts';
import { eraseBatch, eraseMedia, finishErasure } from '../core/account-deletion/erasure.ts';
import type { ErasureStep } from '../core/vocabulary.ts';
import type { Mailer } from '../platform/mailer.ts';
import type { MediaStorage } from '../platform/storage/media-storage.ts';
import { withHeartbeat } from './heartbeat.ts';

export type AccountDeletionActivityDependencies = { db: DatabasePool; storage: MediaStorage; mailer: Mailer; encryptionKey: string };

export function createAccountDeletionActivities({ db, storage, mailer, encryptionKey }: AccountDeletionActivityDependencies) {
  const addresses = deletionAddressBox(encryptionKey);
  return {
    /** The address on file, sealed, read before anything is erased; null when the account is already gone. */
    sealAccountDeletionAddress: ({ userId }: { userId: string }): Promise<string | null> => sealedDeletionAddress(db, addresses, userId),
    /** One batch of one step; returns how many rows it changed (fewer than batchSize: the step is done). */
    eraseAccountBatch({ userId, step, batchSize }: { userId: string; step: ErasureStep; batchSize: number }): Promise<number> {
      return withHeartbeat(() => (step === 'media' ? eraseMedia(db, storage, userId, batchSize) : eraseBatch(db, step, userId, batchSize)));
    },
    /** Re-scans for anything written meanwhile and removes the user row; false when it was already gone. */
    finishAccountErasure: ({ userId }: { userId: string }): Promise<boolean> => withHeartbeat(() => finishErasure(db, userId)),
    /** The confirmation to the address sealed at the start; a retry may send it twice, never zero times. */
    async mailAccountDeletionConfirmation({ sealedAddress }: { sealedAddress: string }): Promise<void> {
      await mailer.send(deletionConfirmation(addresses, sealedAddress));
    },
  };
}

export type AccountDeletionActivities = ReturnType<typeof createAccountDeletionActivities>;
