// Rally signs OAuth app access tokens (RFC 9068 JWTs) and consent tickets with its own key, kept in
// PostgreSQL so every API process and restart signs and verifies alike. The API is the authorization
// server for apps, so its tokens name PUBLIC_URL as issuer; the audience is the same as for login tokens.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type JWK, type JWTVerifyGetKey } from 'jose';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const KeyRow = z.object({ private_jwk: z.record(z.string(), z.unknown()) });
const ALGORITHM = 'RS256';
// Any constant works; it only keeps two first starts from each making a key.
const OAUTH_KEYS_LOCK_ID = 7_301_044;

export type OAuthSigner = {
  issuer: string;
  kid: string;
  privateKey: Awaited<ReturnType<typeof importJWK>>;
  /** Public halves, for verifying and for /oauth/jwks. */
  publicJwks: { keys: JWK[] };
  keySet: JWTVerifyGetKey;
};

function publicHalf(jwk: JWK): JWK {
  const { kty, n, e, kid, alg, use } = jwk;
  return { kty, n, e, kid, alg, use };
}

export async function loadOAuthSigner(db: DatabasePool, issuer: string): Promise<OAuthSigner> {
  const jwks = await db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(${OAUTH_KEYS_LOCK_ID})`);
    const stored = await tx.anyFirst(sql.type(KeyRow)`SELECT private_jwk FROM oauth_signing_keys ORDER BY created_at DESC, kid`);
    if (stored.length > 0) return stored as JWK[];
    const { privateKey } = await generateKeyPair(ALGORITHM, { modulusLength: 2048, extractable: true });
    const jwk: JWK = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: ALGORITHM, use: 'sig' };
    await tx.query(sql.typeAlias('void')`INSERT INTO oauth_signing_keys (kid, private_jwk) VALUES (${jwk.kid!}, ${sql.jsonb(jwk as never)})`);
    return [jwk];
  });
  const newest = jwks[0]!;
  const publicJwks = { keys: jwks.map(publicHalf) };
  return { issuer, kid: newest.kid!, privateKey: await importJWK(newest, ALGORITHM), publicJwks, keySet: createLocalJWKSet(publicJwks) };
}
