// The provider's signing keys live in PostgreSQL: made once, on the first start, then loaded by
// every start and every process, so tokens signed before a restart (or by a sibling process) still
// verify. The private halves are stored sealed with AES-256-GCM under RALLY_ENCRYPTION_KEY, so a
// copy of the database alone cannot mint tokens; a key stored in the clear by an older release is
// sealed at the next start. They never leave this module except into oidc-provider's keystore.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createSecretBox } from '../core/webhooks/signing-secrets.ts';
import { sql } from '../db/sql.ts';

const KeyRow = z.object({ kid: z.string(), private_jwk: z.record(z.string(), z.unknown()).nullable(), sealed_jwk: z.instanceof(Buffer).nullable() });

// Any constant works; it only keeps two first starts from each making a key.
const SIGNING_KEYS_LOCK_ID = 7_301_043;

// RS256 is the one algorithm every OpenID Connect client must support (Core 1.0, section 15.1).
const SIGNING_ALGORITHM = 'RS256';

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { modulusLength: 2048, extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' };
}

/** The private JWKs to sign with, newest first; makes and stores one when there is none yet. `encryptionKey` is Config.encryptionKey. */
export async function loadOrCreateSigningKeys(db: DatabasePool, encryptionKey: string): Promise<JWK[]> {
  const box = createSecretBox(encryptionKey);
  const seal = (key: JWK) => sql.binary(box.seal(JSON.stringify(key)));
  return db.transaction(async (transaction) => {
    await transaction.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${SIGNING_KEYS_LOCK_ID})`);
    const stored = await transaction.any(sql.type(KeyRow)`
      SELECT kid, private_jwk, sealed_jwk FROM identity_signing_keys ORDER BY created_at DESC, kid
    `);
    const keys: JWK[] = [];
    for (const row of stored) {
      if (row.sealed_jwk) {
        try {
          keys.push(JSON.parse(box.open(row.sealed_jwk)) as JWK);
        } catch (error) {
          throw new Error(`the identity provider's signing key ${row.kid} does not open with RALLY_ENCRYPTION_KEY: was the key changed?`, { cause: error });
        }
        continue;
      }
      const key = row.private_jwk as JWK;
      await transaction.query(sql.typeAlias('void')`UPDATE identity_signing_keys SET sealed_jwk = ${seal(key)}, private_jwk = NULL WHERE kid = ${row.kid}`);
      keys.push(key);
    }
    if (keys.length > 0) return keys;

    const key = await generateSigningKey();
    await transaction.query(sql.typeAlias('void')`INSERT INTO identity_signing_keys (kid, sealed_jwk) VALUES (${key.kid!}, ${seal(key)})`);
    return [key];
  });
}
