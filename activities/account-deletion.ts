// What the accountDeletion workflow does, as thin adapters over core/account-deletion/erasure.ts. Every call is
// one bounded batch in its own transaction, safe to repeat after a crash, heartbeating while it runs.
import { ApplicationFailure } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { deletionAddressBox, deletionConfirmation, sealedDeletionAddress } from '../core/account-deletion/confirmation.ts';
import { closeCreatorPetitions } from '../core/account-deletion/close-petitions.ts';
import { eraseBatch, eraseMedia, finishErasure } from '../core/account-deletion/erasure.ts';
import type { PetitionWorkflows } from '../core/petitions/lifecycle.ts';
import type { ErasureStep } from '../core/vocabulary.ts';
import type { Mailer } from '../platform/mailer.ts';
import type { MediaStorage } from '../platform/storage/media-storage.ts';
import { withHeartbeat } from './heartbeat.ts';

export type AccountDeletionActivityDependencies = {
  db: DatabasePool;
  storage: MediaStorage;
  mailer: Mailer;
  encryptionKey: string;
  /** For closing the person's petitions through their own workflows, when they chose so. */
  petitionWorkflows: PetitionWorkflows | undefined;
};

export function createAccountDeletionActivities({ db, storage, mailer, encryptionKey, petitionWorkflows }: AccountDeletionActivityDependencies) {
  const addresses = deletionAddressBox(encryptionKey);
  return {
    /** The address on file, sealed, read before anything is erased; null when the account is already gone. */
    sealAccountDeletionAddress: ({ userId }: { userId: string }): Promise<string | null> => sealedDeletionAddress(db, addresses, userId),
    /** The creator's choice: their active petitions closed before they pass to "a former member". */
    closeAccountPetitions({ userId }: { userId: string }): Promise<number> {
      if (!petitionWorkflows) throw ApplicationFailure.retryable('This worker has no Temporal client for petition transitions', 'NoTemporalClient');
      return closeCreatorPetitions({ db, workflows: petitionWorkflows }, userId);
    },
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
