// Housekeeping for OAuth apps (core/oauth/purge.ts); safe to repeat.
import type { DatabasePool } from 'slonik';
import { deleteExpiredOAuthArtifacts } from '../core/oauth/purge.ts';

export function createOAuthActivities({ db }: { db: DatabasePool }) {
  return {
    /** Deletes up to batchSize rows of each kind whose time is over; returns how many went. */
    async purgeExpiredOAuthArtifacts({ batchSize }: { batchSize: number }): Promise<number> {
      return deleteExpiredOAuthArtifacts(db, batchSize);
    },
  };
}

export type OAuthActivities = ReturnType<typeof createOAuthActivities>;
