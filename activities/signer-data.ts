// The forgetSignerData schedule's steps (core/signatures/retention.ts does the work).
import type { DatabasePool } from 'slonik';
import { markSignerDataDeleted, petitionsDueForSignerDataDeletion, stripSignerDataBatch } from '../core/signatures/retention.ts';

/** `retentionMs`: RALLY_SIGNER_DATA_RETENTION; null (`off`) finds nothing due. */
export function createSignerDataActivities({ db, retentionMs }: { db: DatabasePool; retentionMs: number | null }) {
  return {
    petitionsDueForSignerDataDeletion: async ({ limit }: { limit: number }): Promise<readonly string[]> =>
      retentionMs === null ? [] : petitionsDueForSignerDataDeletion(db, retentionMs, limit),
    stripSignerDataBatch: ({ petitionId, after, batchSize }: { petitionId: string; after: string | null; batchSize: number }) =>
      stripSignerDataBatch(db, petitionId, after, batchSize),
    markSignerDataDeleted: ({ petitionId }: { petitionId: string }): Promise<void> => markSignerDataDeleted(db, petitionId),
  };
}

export type SignerDataActivities = ReturnType<typeof createSignerDataActivities>;
