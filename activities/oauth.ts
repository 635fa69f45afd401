// Housekeeping for OAuth apps (core/oauth/purge.ts, developer-apps.ts); safe to repeat.
import type { DatabasePool } from 'slonik';
import { endClientSecretGrace } from '../core/oauth/developer-apps.ts';
import { deleteExpiredOAuthArtifacts } from '../core/oauth/purge.ts';

export function createOAuthActivities({ db }: { db: DatabasePool }) {
  return {
    /** Deletes up to batchSize rows of each kind whose time is over; returns how many went. */
    async purgeExpiredOAuthArtifacts({ batchSize }: { batchSize: number }): Promise<number> {
      return deleteExpiredOAuthArtifacts(db, batchSize);
    },
    /** Erases a rotated-out app secret once its grace window is over; safe to repeat. */
    endClientSecretGrace: ({ clientId }: { clientId: string }): Promise<boolean> => endClientSecretGrace(db, clientId),
  };
}

export type OAuthActivities = ReturnType<typeof createOAuthActivities>;
