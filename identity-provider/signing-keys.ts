// The provider's signing keys: in PostgreSQL, sealed under RALLY_ENCRYPTION_KEY, shared by every
// provider process and kept across restarts (core/auth/sealed-signing-keys.ts). The private halves
// never leave this module except into oidc-provider's keystore.
import type { JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import { loadOrCreateSealedKeys } from '../core/auth/sealed-signing-keys.ts';

const SIGNING_KEYS_LOCK_ID = 7_301_043;

/** The private JWKs to sign with, newest first; makes and stores one when there is none yet. `encryptionKey` is Config.encryptionKey. */
export function loadOrCreateSigningKeys(db: DatabasePool, encryptionKey: string): Promise<JWK[]> {
  return loadOrCreateSealedKeys(db, { table: 'identity_signing_keys', lockId: SIGNING_KEYS_LOCK_ID, encryptionKey });
}
