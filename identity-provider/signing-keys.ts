// The provider's signing keys, shared by every provider process and kept across restarts
// (core/auth/rotating-signing-keys.ts); they rotate on the app-token keys' schedule. The private halves
// never leave this process except into oidc-provider's keystore.
import type { JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../db/notifications.ts';
import type { Logger } from '../platform/logger.ts';
import { IDENTITY_SIGNING_KEYS, keySigningAt, loadRotatingSigningKeys, loadSigningKeys, type RotatingSigningKeys } from '../core/auth/rotating-signing-keys.ts';

/** Every key, reloaded when a rotation adds or drops one. `encryptionKey` is Config.encryptionKey. */
export function loadIdentitySigningKeys(
  db: DatabasePool,
  options: { encryptionKey: string; notifications: NotificationListener; log: Logger },
): Promise<RotatingSigningKeys> {
  return loadRotatingSigningKeys(db, IDENTITY_SIGNING_KEYS, options);
}

/** The private JWK that signs now, read once (`rally loadtest users`); makes and stores one when there is none yet. */
export async function loadCurrentSigningKey(db: DatabasePool, encryptionKey: string): Promise<JWK> {
  return keySigningAt(await loadSigningKeys(db, IDENTITY_SIGNING_KEYS, encryptionKey), Date.now()).privateJwk;
}
