// Logging in and refreshing: passwords go to the identity provider; Rally keeps only what it needs
// to answer precisely (refresh-token state) and to revoke at once. Wrong credentials count against
// the login throttle; a refresh token rotated by the provider replaces the old one in Rally's records.
import type { DatabasePool } from 'slonik';
import { metrics } from '../../platform/metrics.ts';
import { Unauthenticated, Unavailable } from '../errors/domain-error.ts';
import { upsertUserFromClaims } from '../users/queries.ts';
import { accessTokenIdentity } from './access-tokens.ts';
import type { IdentityClient, TokenSet } from './identity-client.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { endFamilyAfterReuse } from './refresh-reuse.ts';
import {
  claimForRotation,
  findRefreshToken,
  recordFamilyAccessToken,
  recordRefreshToken,
  releaseRotationClaim,
  type RefreshTokenState,
} from './refresh-tokens.ts';
import type { RevocationList } from './revocation-list.ts';

export type SessionDependencies = {
  db: DatabasePool;
  identity: IdentityClient;
  throttle: LoginThrottle;
  refreshTokenTtlMs: number;
  revocations: RevocationList;
};

/** The tokens of a new or refreshed session; refreshToken is the one the client keeps from now on. */
export type Session = { tokens: TokenSet; refreshToken: string };

/** Each access token is remembered with its login (refresh-token family), so ending the login revokes it too. */
async function rememberAccessToken(db: DatabasePool, familyId: string, accessToken: string): Promise<void> {
  const identity = accessTokenIdentity(accessToken);
  if (identity) await recordFamilyAccessToken(db, familyId, identity.jti, identity.expiresAt);
}

export async function logIn(deps: SessionDependencies, credentials: { email: string; password: string }, clientIp: string): Promise<Session> {
  const { email, password } = credentials;
  // Counted before the password is checked (core/auth/login-throttle.ts), so parallel guesses cannot race it.
  await deps.throttle.beforeAttempt(email, clientIp);
  metrics.passwordChecks.inc();
  const tokens = await deps.identity.passwordGrant(email, password).catch((error: unknown) => {
    throw error instanceof Unauthenticated ? new Unauthenticated('The email or password is wrong.', { code: 'invalid_credentials' }) : error;
  });
  if (!tokens.claims || !tokens.refreshToken) throw new Unavailable('The identity provider answered without an ID token or refresh token.');
  const user = await upsertUserFromClaims(deps.db, {
    issuer: await deps.identity.issuer(),
    subject: tokens.claims.sub,
    email: tokens.claims.email ?? email,
    displayName: tokens.claims.name ?? email.split('@')[0] ?? 'user',
    emailVerified: tokens.claims.email_verified ?? false,
  });
  const familyId = await recordRefreshToken(deps.db, tokens.refreshToken, user.id, deps.refreshTokenTtlMs);
  await rememberAccessToken(deps.db, familyId, tokens.accessToken);
  await deps.throttle.recordSuccess(email, clientIp);
  return { tokens, refreshToken: tokens.refreshToken };
}

const invalidRefresh = () => new Unauthenticated('The refresh token is not valid.', { code: 'invalid_token' });

/**
 * A rotated token presented again (RFC 9700 §4.14): end the login, and let the provider see the
 * replay too, so it revokes its own grant (oidc-provider does on a consumed token). Its answer does not matter.
 */
async function refuseReuse(deps: SessionDependencies, token: string, state: RefreshTokenState): Promise<never> {
  await endFamilyAfterReuse(deps, state);
  await deps.identity.refresh(token).catch(() => undefined);
  throw new Unauthenticated('This refresh token was already used; the login it belongs to has been ended.', { code: 'invalid_token' });
}

export async function refreshSession(deps: SessionDependencies, refreshToken: string): Promise<Session> {
  const known = await findRefreshToken(deps.db, refreshToken);
  if (!known) throw invalidRefresh();
  if (known.rotated) return refuseReuse(deps, refreshToken, known);
  if (known.revoked) throw invalidRefresh();
  if (known.expired) throw new Unauthenticated('The refresh token has expired; log in again.', { code: 'token_expired' });
  if (!(await claimForRotation(deps.db, refreshToken))) {
    // Another refresh with this very token won the race: that is reuse as well.
    const now = await findRefreshToken(deps.db, refreshToken);
    if (now?.rotated) return refuseReuse(deps, refreshToken, now);
    throw invalidRefresh();
  }
  const tokens = await deps.identity.refresh(refreshToken).catch(async (error: unknown) => {
    if (error instanceof Unauthenticated) throw invalidRefresh();
    await releaseRotationClaim(deps.db, refreshToken);
    throw error;
  });
  const next = tokens.refreshToken ?? refreshToken;
  if (next === refreshToken) await releaseRotationClaim(deps.db, refreshToken);
  else await recordRefreshToken(deps.db, next, known.user_id, deps.refreshTokenTtlMs, known.family_id);
  await rememberAccessToken(deps.db, known.family_id, tokens.accessToken);
  return { tokens, refreshToken: next };
}
