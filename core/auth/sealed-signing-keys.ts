// Private signing keys (JWK) of the identity provider and of Rally's OAuth authorization server, in
// PostgreSQL: the first made on the first start, the next by rotation (signing-key-rotation.ts), and
// sealed under RALLY_ENCRYPTION_KEY, so a copy of the database alone cannot mint tokens.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createSecretBox } from '../webhooks/signing-secrets.ts';

const KeyRow = z.object({ kid: z.string(), private_jwk: z.record(z.string(), z.unknown()).nullable(), sealed_jwk: z.instanceof(Buffer).nullable() });

export type SealedKeyStore = {
  table: 'identity_signing_keys' | 'oauth_signing_keys';
  /** Any constant per table; it only keeps two first starts from each making a key. */
  lockId: number;
  /** Config.encryptionKey. */
  encryptionKey: string;
};

// RS256 is the one algorithm every OpenID Connect client must support (Core 1.0, section 15.1).
const ALGORITHM = 'RS256';

/** A fresh RSA key with a random kid; the caller seals it before it is stored. */
export async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { modulusLength: 2048, extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: ALGORITHM, use: 'sig' };
}

/** The private JWKs to sign with, newest first; makes and stores one when there is none yet. */
export async function loadOrCreateSealedKeys(db: DatabasePool, store: SealedKeyStore): Promise<JWK[]> {
  const box = createSecretBox(store.encryptionKey);
  const seal = (key: JWK) => sql.binary(box.seal(JSON.stringify(key)));
  const table = sql.identifier([store.table]);
  return db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${store.lockId})`);
    const stored = await tx.any(sql.type(KeyRow)`SELECT kid, private_jwk, sealed_jwk FROM ${table} ORDER BY created_at DESC, kid`);
    const keys: JWK[] = [];
    for (const row of stored) {
      if (!row.sealed_jwk) {
        await tx.query(sql.typeAlias('void')`UPDATE ${table} SET sealed_jwk = ${seal(row.private_jwk as JWK)}, private_jwk = NULL WHERE kid = ${row.kid}`);
        keys.push(row.private_jwk as JWK);
        continue;
      }
      try {
        keys.push(JSON.parse(box.open(row.sealed_jwk)) as JWK);
      } catch (error) {
        throw new Error(`the signing key ${row.kid} in ${store.table} does not open with RALLY_ENCRYPTION_KEY: was the key changed?`, { cause: error });
      }
    }
    if (keys.length > 0) return keys;
    const key = await generateSigningKey();
    await tx.query(sql.typeAlias('void')`INSERT INTO ${table} (kid, sealed_jwk) VALUES (${key.kid!}, ${seal(key)})`);
    return [key];
  });
}
