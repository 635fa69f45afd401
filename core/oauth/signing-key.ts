// Rally signs OAuth app access tokens (RFC 9068 JWTs) and consent tickets with its own key, kept in
// PostgreSQL so every API process and restart signs and verifies alike. The API is the authorization
// server for apps, so its tokens name PUBLIC_URL as issuer; the audience is the same as for login tokens.
import { createLocalJWKSet, importJWK, type JWK, type JWTVerifyGetKey } from 'jose';
import type { DatabasePool } from 'slonik';
import { loadOrCreateSealedKeys } from '../auth/sealed-signing-keys.ts';

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

export async function loadOAuthSigner(db: DatabasePool, issuer: string, encryptionKey: string): Promise<OAuthSigner> {
  // Sealed under RALLY_ENCRYPTION_KEY at rest, like the identity provider's keys.
  const jwks = await loadOrCreateSealedKeys(db, { table: 'oauth_signing_keys', lockId: OAUTH_KEYS_LOCK_ID, encryptionKey });
  const newest = jwks[0]!;
  const publicJwks = { keys: jwks.map(publicHalf) };
  return { issuer, kid: newest.kid!, privateKey: await importJWK(newest, ALGORITHM), publicJwks, keySet: createLocalJWKSet(publicJwks) };
}
