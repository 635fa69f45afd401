// The provider's signing keys live in PostgreSQL: made once, on the first start, then loaded by
// every start and every process, so tokens signed before a restart (or by a sibling process) still
// verify. The private halves never leave this module except into oidc-provider's keystore.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';

const KeyRow = z.object({ private_jwk: z.record(z.string(), z.unknown()) });

// Any constant works; it only keeps two first starts from each making a key.
const SIGNING_KEYS_LOCK_ID = 7_301_043;

// RS256 is the one algorithm every OpenID Connect client must support (Core 1.0, section 15.1).
const SIGNING_ALGORITHM = 'RS256';

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { modulusLength: 2048, extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALGORITHM, use: 'sig' };
}

/** The private JWKs to sign with, newest first; makes and stores one when there is none yet. */
export async function loadOrCreateSigningKeys(db: DatabasePool): Promise<JWK[]> {
  return db.transaction(async (transaction) => {
    await transaction.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${SIGNING_KEYS_LOCK_ID})`);
    const stored = await transaction.anyFirst(sql.type(KeyRow)`
      SELECT private_jwk FROM identity_signing_keys ORDER BY created_at DESC, kid
    `);
    if (stored.length > 0) return stored as JWK[];

    const key = await generateSigningKey();
    await transaction.query(sql.typeAlias('void')`
      INSERT INTO identity_signing_keys (kid, private_jwk) VALUES (${key.kid!}, ${sql.jsonb(key as never)})
    `);
    return [key];
  });
}
