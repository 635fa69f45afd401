// POST /v1/auth/login, /refresh, /logout, /revoke. Passwords go to the identity provider; Rally keeps
// only what it needs to answer precisely (refresh-token state) and to revoke at once (token ids).
import { Unauthenticated } from '../../core/errors/domain-error.ts';
import type { DatabasePool } from 'slonik';
import { sendData } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { findUserByIdentity, upsertUserFromClaims } from '../../core/users/queries.ts';
import { accessTokenIdentity, type AccessTokenVerifier } from '../../core/auth/access-tokens.ts';
import type { IdentityClient, TokenSet } from '../../core/auth/identity-client.ts';
import type { LoginThrottle } from '../../core/auth/login-throttle.ts';
import { endFamilyAfterReuse } from '../../core/auth/refresh-reuse.ts';
import {
  claimForRotation, findRefreshToken, recordFamilyAccessToken, recordRefreshToken, releaseRotationClaim, revokeRefreshToken, type RefreshTokenState,
} from '../../core/auth/refresh-tokens.ts';
import type { RevocationList } from '../../core/auth/revocation-list.ts';
import { LoginBody, RefreshBody, RevokeBody, TokenPairEnvelope } from './schemas.ts';

export type AuthRouteDependencies = {
  db: DatabasePool;
  identity: IdentityClient;
  verifyAccessToken: AccessTokenVerifier;
  revocations: RevocationList;
  throttle: LoginThrottle;
  refreshTokenTtlMs: number;
};

const tokenPair = (tokens: TokenSet, refreshToken: string) => ({
  token: tokens.idToken,
  access_token: tokens.accessToken,
  refresh_token: refreshToken,
  expires_in: tokens.expiresIn,
  token_type: tokens.tokenType,
});

export function createAuthRoutes(deps: AuthRouteDependencies): AnyRouteSpec[] {
  const invalidRefresh = () => new RallyError('unauthorized', 'The refresh token is not valid.', { code: 'invalid_token' });

  async function rememberAccessToken(familyId: string, accessToken: string) {
    const identity = accessTokenIdentity(accessToken);
    if (identity) await recordFamilyAccessToken(deps.db, familyId, identity.jti, identity.expiresAt);
  }

  // A rotated token presented again: end the login, and let the provider see the replay too, so
  // it revokes its own grant (oidc-provider does on a consumed token). Its answer does not matter.
  async function refuseReuse(token: string, state: RefreshTokenState): Promise<never> {
    await endFamilyAfterReuse(deps, state);
    await deps.identity.refresh(token).catch(() => undefined);
    throw new RallyError('unauthorized', 'This refresh token was already used; the login it belongs to has been ended.', { code: 'invalid_token' });
  }

  return [
    defineRoute({
      method: 'post', path: '/v1/auth/login', operationId: 'login', idempotent: false, tag: 'Authentication', auth: 'none',
      summary: 'Exchange an email and password for tokens (checked by the identity provider)',
      body: LoginBody,
      responses: { 200: { description: 'Tokens', schema: TokenPairEnvelope }, 401: { description: 'Wrong email or password (never says which)' }, 429: { description: 'Too many failures' } },
      async handler(ctx, { body }) {
        await deps.throttle.beforeAttempt(body.email, ctx.state.clientIp);
        const tokens = await deps.identity.passwordGrant(body.email, body.password).catch((error: unknown) => {
          throw error instanceof Unauthenticated ? new RallyError('unauthorized', 'The email or password is wrong.', { code: 'invalid_credentials' }) : error;
        });
        if (!tokens.claims || !tokens.refreshToken) throw new RallyError('service-unavailable', 'The identity provider answered without an ID token or refresh token.');
        const user = await upsertUserFromClaims(deps.db, {
          issuer: await deps.identity.issuer(),
          subject: tokens.claims.sub,
          email: tokens.claims.email ?? body.email,
          displayName: tokens.claims.name ?? body.email.split('@')[0] ?? 'user',
          emailVerified: tokens.claims.email_verified ?? false,
        });
        const familyId = await recordRefreshToken(deps.db, tokens.refreshToken, user.id, deps.refreshTokenTtlMs);
        await rememberAccessToken(familyId, tokens.accessToken);
        await deps.throttle.recordSuccess(body.email, ctx.state.clientIp);
        sendData(ctx, tokenPair(tokens, tokens.refreshToken));
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/refresh', operationId: 'refreshTokens', idempotent: false, tag: 'Authentication', auth: 'none',
      summary: 'Exchange a refresh token for a new token pair',
      body: RefreshBody,
      responses: { 200: { description: 'New tokens', schema: TokenPairEnvelope }, 401: { description: 'Invalid, revoked or expired (code token_expired) refresh token' } },
      async handler(ctx, { body }) {
        const known = await findRefreshToken(deps.db, body.refresh_token);
        if (!known) throw invalidRefresh();
        if (known.rotated) return refuseReuse(body.refresh_token, known);
        if (known.revoked) throw invalidRefresh();
        if (known.expired) throw new RallyError('unauthorized', 'The refresh token has expired; log in again.', { code: 'token_expired' });
        if (!(await claimForRotation(deps.db, body.refresh_token))) {
          // Another refresh with this very token won the race: that is reuse as well.
          const now = await findRefreshToken(deps.db, body.refresh_token);
          if (now?.rotated) return refuseReuse(body.refresh_token, now);
          throw invalidRefresh();
        }
        const tokens = await deps.identity.refresh(body.refresh_token).catch(async (error: unknown) => {
          if (error instanceof Unauthenticated) throw invalidRefresh();
          await releaseRotationClaim(deps.db, body.refresh_token);
          throw error;
        });
        const refreshToken = tokens.refreshToken ?? body.refresh_token;
        if (refreshToken === body.refresh_token) await releaseRotationClaim(deps.db, body.refresh_token);
        else await recordRefreshToken(deps.db, refreshToken, known.user_id, deps.refreshTokenTtlMs, known.family_id);
        await rememberAccessToken(known.family_id, tokens.accessToken);
        sendData(ctx, tokenPair(tokens, refreshToken));
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/logout', operationId: 'logout', idempotent: false, tag: 'Authentication', auth: 'none',
      summary: 'Revoke a refresh token',
      body: RefreshBody,
      responses: { 204: { description: 'Revoked (also when it was already dead)' } },
      async handler(ctx, { body }) {
        await revokeRefreshToken(deps.db, body.refresh_token);
        await deps.identity.revoke(body.refresh_token, 'refresh_token');
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/auth/revoke', operationId: 'revokeToken', idempotent: false, tag: 'Authentication', auth: 'required', permission: 'destroy',
      summary: "Invalidate one of the caller's access or refresh tokens at once, on every API process",
      body: RevokeBody,
      responses: { 204: { description: 'Revoked; a token that is not the caller’s is left alone (RFC 7009)' } },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        const isJwt = body.token.split('.').length === 3;
        if (body.token_type_hint === 'access_token' || (body.token_type_hint === undefined && isJwt)) {
          // An expired or foreign token needs no revoking; RFC 7009 answers the same either way.
          const verified = await deps.verifyAccessToken(body.token).catch(() => undefined);
          const owner = verified && (await findUserByIdentity(deps.db, verified.issuer, verified.subject));
          if (verified && owner && owner.id === principal.userId) await deps.revocations.revoke(verified.jti, verified.expiresAt);
        } else if (await revokeRefreshToken(deps.db, body.token, principal.userId)) {
          await deps.identity.revoke(body.token, 'refresh_token');
        }
        ctx.status = 204;
      },
    }),
  ];
}
