// Rally signs OAuth app access tokens (RFC 9068 JWTs) with its own RSA key, kept in PostgreSQL so every
// API process and restart signs and verifies alike. Consent tickets never see that key: they are
// MACed with a key of their own, derived from RALLY_ENCRYPTION_KEY (HKDF), so a ticket can never pass
// for a token nor a token for a ticket, and the token key's public half is all that is published. The API is the authorization
// server for apps, so its tokens name PUBLIC_URL as issuer; the audience is the same as for login tokens.
import { hkdfSync } from 'node:crypto';
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
  /** HS256 key for consent tickets only (core/oauth/authorization.ts); never published. */
  consentTicketKey: Uint8Array;
};

function deriveConsentTicketKey(encryptionKey: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', encryptionKey, 'rally-oauth', 'consent tickets (HS256)', 32));
}

function publicHalf(jwk: JWK): JWK {
  const { kty, n, e, kid, alg, use } = jwk;
  return { kty, n, e, kid, alg, use };
}

export async function loadOAuthSigner(db: DatabasePool, issuer: string, encryptionKey: string): Promise<OAuthSigner> {
  // Sealed under RALLY_ENCRYPTION_KEY at rest, like the identity provider's keys.
  const jwks = await loadOrCreateSealedKeys(db, { table: 'oauth_signing_keys', lockId: OAUTH_KEYS_LOCK_ID, encryptionKey });
  const newest = jwks[0]!;
  const publicJwks = { keys: jwks.map(publicHalf) };
  return {
    issuer,
    kid: newest.kid!,
    privateKey: await importJWK(newest, ALGORITHM),
    publicJwks,
    keySet: createLocalJWKSet(publicJwks),
    consentTicketKey: deriveConsentTicketKey(encryptionKey),
  };
}
