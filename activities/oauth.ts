// Housekeeping for OAuth apps (core/oauth/purge.ts, developer-apps.ts, signing-key-rotation.ts); safe to repeat.
import type { DatabasePool } from 'slonik';
import { endClientSecretGrace } from '../core/oauth/developer-apps.ts';
import { deleteExpiredOAuthArtifacts } from '../core/oauth/purge.ts';
import { rotateOAuthSigningKeyIfDue, type KeyRotationPolicy } from '../core/oauth/signing-key-rotation.ts';

export function createOAuthActivities({ db, encryptionKey, keyRotation }: { db: DatabasePool; encryptionKey: string; keyRotation: KeyRotationPolicy }) {
  return {
    /** Deletes up to batchSize rows of each kind whose time is over; returns how many went. */
    async purgeExpiredOAuthArtifacts({ batchSize }: { batchSize: number }): Promise<number> {
      return deleteExpiredOAuthArtifacts(db, batchSize);
    },
    /** Erases a rotated-out app secret once its grace window is over; safe to repeat. */
    endClientSecretGrace: ({ clientId }: { clientId: string }): Promise<boolean> => endClientSecretGrace(db, clientId),
    /** Makes the next token signing key when one is due and drops keys whose tokens have expired; returns the new kid. */
    async rotateOAuthSigningKeyIfDue(): Promise<{ created: string | null; dropped: number }> {
      const outcome = await rotateOAuthSigningKeyIfDue(db, { encryptionKey, policy: keyRotation });
      return { created: outcome.created?.kid ?? null, dropped: outcome.dropped.length };
    },
  };
}

export type OAuthActivities = ReturnType<typeof createOAuthActivities>;
