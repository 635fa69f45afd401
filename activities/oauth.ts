// Housekeeping for OAuth apps (core/oauth/purge.ts, developer-apps.ts) and the rotation of the keys
// that sign tokens (core/auth/signing-key-rotation.ts): the app tokens' and the embedded identity
// provider's. Safe to repeat.
import type { DatabasePool } from 'slonik';
import { endClientSecretGrace } from '../core/oauth/developer-apps.ts';
import { deleteExpiredOAuthArtifacts } from '../core/oauth/purge.ts';
import { IDENTITY_SIGNING_KEYS, OAUTH_SIGNING_KEYS, type RotatingKeyStore } from '../core/auth/rotating-signing-keys.ts';
import { rotateSigningKeyIfDue, type KeyRotationPolicy } from '../core/auth/signing-key-rotation.ts';

export type OAuthActivityDependencies = {
  db: DatabasePool;
  encryptionKey: string;
  keyRotation: KeyRotationPolicy;
  /** Whether the embedded identity provider is in use (OIDC_ISSUER unset): an external one keeps its own keys. */
  embeddedIdentityProvider: boolean;
};

export function createOAuthActivities({ db, encryptionKey, keyRotation, embeddedIdentityProvider }: OAuthActivityDependencies) {
  async function rotate(store: RotatingKeyStore): Promise<{ created: string | null; dropped: number }> {
    const outcome = await rotateSigningKeyIfDue(db, store, { encryptionKey, policy: keyRotation });
    return { created: outcome.created?.kid ?? null, dropped: outcome.dropped.length };
  }
  return {
    /** Deletes up to batchSize rows of each kind whose time is over; returns how many went. */
    async purgeExpiredOAuthArtifacts({ batchSize }: { batchSize: number }): Promise<number> {
      return deleteExpiredOAuthArtifacts(db, batchSize);
    },
    /** Erases a rotated-out app secret once its grace window is over; safe to repeat. */
    endClientSecretGrace: ({ clientId }: { clientId: string }): Promise<boolean> => endClientSecretGrace(db, clientId),
    /** Makes the next app-token signing key when one is due and drops keys whose tokens have expired; returns the new kid. */
    rotateOAuthSigningKeyIfDue: () => rotate(OAUTH_SIGNING_KEYS),
    /** The same for the embedded identity provider's keys; nothing when an external provider is configured. */
    async rotateIdentitySigningKeyIfDue(): Promise<{ created: string | null; dropped: number }> {
      return embeddedIdentityProvider ? rotate(IDENTITY_SIGNING_KEYS) : { created: null, dropped: 0 };
    },
  };
}

export type OAuthActivities = ReturnType<typeof createOAuthActivities>;
