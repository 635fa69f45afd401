// Verifies access tokens (JWTs) locally against the provider's published keys, with no call to the provider per request; revocation is checked by the caller on
// every request. OAuth app tokens are verified the same way (same audience, same revocation list) against Rally's own key, as Rally is their issuer; they also
// name the app (client_id).
import { createHash } from 'node:crypto';
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import { createRemoteJWKSet, decodeJwt, errors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { InvalidJwt, verifyJwt, type JwtIssuer } from './compact-jwt.ts';
import { Unauthenticated } from '../errors/domain-error.ts';
import type { IdentityClient } from './identity-client.ts';
import { GRANT_ID_CLAIM } from '../vocabulary.ts';

/** `grantId`: an app token's grant (core/oauth/grants.ts), refused with it when the grant ends. */
export type VerifiedAccessToken = { issuer: string; subject: string; jti: string; expiresAt: Date; scope: string[]; clientId?: string; grantId?: string };

/** Rally's own issuer of OAuth app tokens (core/oauth/signing-key.ts). */
export type AppTokenIssuer = { issuer: string; keySet: JWTVerifyGetKey };

type TokenIssuer = JwtIssuer & { apps: AppTokenIssuer | undefined };

export type AccessTokenVerifier = (token: string) => Promise<VerifiedAccessToken>;

const invalid = (detail: string, code = 'invalid_token') => new Unauthenticated(detail, { code });

// jose caches the key set and refetches it when a token names an unknown kid; signatures are checked on
// node:crypto (compact-jwt.ts). A token verified once is remembered, keyed by its SHA-256, for a minute at most
// and never past `exp`, in an LRU bounded by size and purged by age: a client sends the same token for minutes,
// while a campaign's signers each send theirs once.
const VERIFIED_TOKENS_MAX = 20_000;
const VERIFIED_TOKEN_MAX_AGE_MS = 60_000;
const PURGE_EVERY_MS = 10_000;
const CLOCK_TOLERANCE_SECONDS = 5;

export function createAccessTokenVerifier(deps: { identity: IdentityClient; audience: string; apps?: AppTokenIssuer }): AccessTokenVerifier {
  let keys: Promise<{ jwks: ReturnType<typeof createRemoteJWKSet>; issuer: string }> | undefined;
  const resolveKeys = () =>
    (keys ??= Promise.all([deps.identity.jwksUri(), deps.identity.issuer()])
      .then(([uri, issuer]) => ({ jwks: createRemoteJWKSet(new URL(uri), { cooldownDuration: 30_000, cacheMaxAge: 600_000 }), issuer }))
      .catch((error: unknown) => {
        keys = undefined;
        throw error;
      }));

  const verified = createBoundedLru<string, VerifiedAccessToken>(VERIFIED_TOKENS_MAX, { purgeStaleEveryMs: PURGE_EVERY_MS });

  // Rally's own app tokens name Rally's issuer; every other token is the provider's.
  const expected = { audience: deps.audience, clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS };
  async function issuerFor(claimedIssuer: unknown): Promise<TokenIssuer> {
    if (deps.apps && claimedIssuer === deps.apps.issuer) {
      return { keySet: deps.apps.keySet, expected: { ...expected, issuer: deps.apps.issuer, typ: 'at+jwt' }, apps: deps.apps };
    }
    const { jwks, issuer } = await resolveKeys();
    return { keySet: jwks, expected: { ...expected, issuer }, apps: undefined };
  }

  return async function verifyAccessToken(token) {
    const key = createHash('sha256').update(token).digest('base64url');
    const known = verified.get(key);
    if (known && known.expiresAt.getTime() > Date.now()) return known;
    const result = await verifySignature(token);
    const ttl = Math.min(VERIFIED_TOKEN_MAX_AGE_MS, result.expiresAt.getTime() - Date.now());
    if (ttl > 0) verified.set(key, result, { ttl });
    return result;
  };

  async function verifySignature(token: string): Promise<VerifiedAccessToken> {
    let verified: { claims: JWTPayload; issuer: TokenIssuer };
    try {
      verified = await verifyJwt(token, issuerFor);
    } catch (error) {
      if (error instanceof InvalidJwt && error.expired) throw invalid('The access token has expired; refresh it.', 'token_expired');
      // jose's key set refuses a kid it does not hold, or a key set it cannot fetch or read.
      if (error instanceof InvalidJwt || error instanceof errors.JOSEError) throw invalid('The access token is not valid.');
      throw error;
    }
    const {
      claims: payload,
      issuer: {
        apps,
        expected: { issuer },
      },
    } = verified;
    if (typeof payload.sub !== 'string' || !payload.sub || typeof payload.jti !== 'string' || !payload.jti || !payload.exp)
      throw invalid('The access token lacks sub, jti or exp.');
    if (apps && typeof payload.client_id !== 'string') throw invalid('The access token lacks client_id.');
    return {
      issuer,
      subject: payload.sub,
      jti: payload.jti,
      expiresAt: new Date(payload.exp * 1000),
      scope: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
      ...(apps ? { clientId: payload.client_id as string } : {}),
      ...(apps && typeof payload[GRANT_ID_CLAIM] === 'string' ? { grantId: payload[GRANT_ID_CLAIM] } : {}),
    };
  }
}

/**
 * The id and expiry of an access token Rally was just handed by the provider (no verification:
 * it came straight from the token endpoint), so it can be revoked with its login. Undefined for
 * opaque tokens from providers that do not issue JWTs.
 */
export function accessTokenIdentity(token: string): { jti: string; expiresAt: Date } | undefined {
  try {
    const { jti, exp } = decodeJwt(token);
    return jti && exp ? { jti, expiresAt: new Date(exp * 1000) } : undefined;
  } catch {
    return undefined;
  }
}
