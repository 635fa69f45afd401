// Logging in and refreshing: passwords go to the identity provider; Rally keeps only what it needs
// to answer precisely (refresh-token state) and to revoke at once. Wrong credentials count against
// the login throttle; a refresh token rotated by the provider replaces the old one in Rally's records.
import type { DatabasePool } from 'slonik';
import { Unauthenticated, Unavailable } from '../errors/domain-error.ts';
import { upsertUserFromClaims } from '../users/queries.ts';
import type { IdentityClient, TokenSet } from './identity-client.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { findRefreshToken, recordRefreshToken, revokeRefreshToken } from './refresh-tokens.ts';

export type SessionDependencies = { db: DatabasePool; identity: IdentityClient; throttle: LoginThrottle; refreshTokenTtlMs: number };

/** The tokens of a new or refreshed session; refreshToken is the one the client keeps from now on. */
export type Session = { tokens: TokenSet; refreshToken: string };

export async function logIn(deps: SessionDependencies, credentials: { email: string; password: string }, clientIp: string): Promise<Session> {
  const { email, password } = credentials;
  await deps.throttle.beforeAttempt(email, clientIp);
  const tokens = await deps.identity.passwordGrant(email, password).catch(async (error: unknown) => {
    if (!(error instanceof Unauthenticated)) throw error;
    await deps.throttle.recordFailure(email, clientIp);
    throw new Unauthenticated('The email or password is wrong.', { code: 'invalid_credentials' });
  });
  if (!tokens.claims || !tokens.refreshToken) throw new Unavailable('The identity provider answered without an ID token or refresh token.');
  const user = await upsertUserFromClaims(deps.db, {
    issuer: await deps.identity.issuer(),
    subject: tokens.claims.sub,
    email: tokens.claims.email ?? email,
    displayName: tokens.claims.name ?? email.split('@')[0] ?? 'user',
    emailVerified: tokens.claims.email_verified ?? false,
  });
  await recordRefreshToken(deps.db, tokens.refreshToken, user.id, deps.refreshTokenTtlMs);
  await deps.throttle.recordSuccess(email);
  return { tokens, refreshToken: tokens.refreshToken };
}

export async function refreshSession(deps: Pick<SessionDependencies, 'db' | 'identity' | 'refreshTokenTtlMs'>, refreshToken: string): Promise<Session> {
  const invalid = () => new Unauthenticated('The refresh token is not valid.', { code: 'invalid_token' });
  const known = await findRefreshToken(deps.db, refreshToken);
  if (!known || known.revoked) throw invalid();
  if (known.expired) throw new Unauthenticated('The refresh token has expired; log in again.', { code: 'token_expired' });
  const tokens = await deps.identity.refresh(refreshToken).catch((error: unknown) => {
    throw error instanceof Unauthenticated ? invalid() : error;
  });
  const next = tokens.refreshToken ?? refreshToken;
  if (next !== refreshToken) {
    await revokeRefreshToken(deps.db, refreshToken);
    await recordRefreshToken(deps.db, next, known.user_id, deps.refreshTokenTtlMs);
  }
  return { tokens, refreshToken: next };
}
