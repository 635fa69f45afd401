// POST /v1/auth/login, /refresh, /logout, /revoke. Passwords go to the identity provider; Rally keeps
// only what it needs to answer precisely (refresh-token state) and to revoke at once (token ids).
import type { DatabasePool } from 'slonik';
import { sendData } from '../http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { findUserByIdentity } from '../../core/users/queries.ts';
import type { AccessTokenVerifier } from '../../core/auth/access-tokens.ts';
import type { IdentityClient } from '../../core/auth/identity-client.ts';
import type { LoginThrottle } from '../../core/auth/login-throttle.ts';
import { revokeRefreshToken } from '../../core/auth/refresh-tokens.ts';
import { revokeAppRefreshToken } from '../../core/oauth/revocation.ts';
import { logIn, refreshSession, type Session } from '../../core/auth/sessions.ts';
import type { RevocationList } from '../../core/auth/revocation-list.ts';
import { LoginBody, RefreshBody, RevokeBody, TokenPairEnvelope } from './schemas.ts';

export type AuthRouteDependencies = {
  db: DatabasePool;
  identity: IdentityClient;
  verifyAccessToken: AccessTokenVerifier;
  revocations: RevocationList;
  throttle: LoginThrottle;
  refreshTokenTtlMs: number;
  accessTokenTtlMs: number;
};

const tokenPair = ({ tokens, refreshToken }: Session) => ({
  token: tokens.idToken,
  access_token: tokens.accessToken,
  refresh_token: refreshToken,
  expires_in: tokens.expiresIn,
  token_type: tokens.tokenType,
});

export function createAuthRoutes(deps: AuthRouteDependencies): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/login',
      operationId: 'login',
      idempotent: false,
      tag: 'Authentication',
      auth: 'none',
      summary: 'Log in with email and password',
      description:
        'The access token is sent as `Authorization: Bearer …`; when it expires, POST /v1/auth/refresh with the refresh token. ' +
        'Past RALLY_LOGIN_FAILURE_LIMIT failures for one email, from any address, every attempt for it answers 429 with Retry-After until the window passes, ' +
        'the right password too, whether or not the account exists.',
      body: LoginBody,
      responses: {
        200: { description: 'Tokens', schema: TokenPairEnvelope },
        401: { description: 'Wrong email or password (never says which)' },
        429: { description: 'Too many failures for this email or from this address; Retry-After says when to try again' },
      },
      async handler(ctx, { body }) {
        sendData(ctx, tokenPair(await logIn(deps, body, ctx.state.clientIp)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/refresh',
      operationId: 'refreshTokens',
      idempotent: false,
      tag: 'Authentication',
      auth: 'none',
      summary: 'Refresh a token pair',
      description: 'Exchange a refresh token for a new token pair.',
      body: RefreshBody,
      responses: {
        200: { description: 'New tokens', schema: TokenPairEnvelope },
        401: { description: 'Invalid, revoked or expired (code token_expired) refresh token' },
      },
      async handler(ctx, { body }) {
        sendData(ctx, tokenPair(await refreshSession(deps, body.refresh_token)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/logout',
      operationId: 'logout',
      idempotent: false,
      tag: 'Authentication',
      auth: 'none',
      summary: 'Log out',
      description: 'Revoke a refresh token.',
      body: RefreshBody,
      responses: { 204: { description: 'Revoked (also when it was already dead)' } },
      async handler(ctx, { body }) {
        await revokeRefreshToken(deps.db, body.refresh_token);
        await deps.identity.revoke(body.refresh_token, 'refresh_token');
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/revoke',
      operationId: 'revokeToken',
      idempotent: false,
      tag: 'Authentication',
      auth: 'required',
      scope: NOT_FOR_APPS,
      permission: 'destroy',
      summary: 'Revoke an access or refresh token',
      description: "Invalidate one of the caller's access or refresh tokens at once, on every API process.",
      body: RevokeBody,
      responses: { 204: { description: 'Revoked; a token that is not the caller’s is left alone (RFC 7009)' } },
      async handler(ctx, { body }) {
        const principal = ctx.state.principal!;
        const isJwt = body.token.split('.').length === 3;
        if (body.token_type_hint === 'access_token' || (body.token_type_hint === undefined && isJwt)) {
          // An expired or foreign token needs no revoking; RFC 7009 answers the same either way.
          const verified = await deps.verifyAccessToken(body.token).catch(() => undefined);
          // An app's token names the user it acts for by id; a login's token by the provider's subject.
          const ownerId = verified?.clientId ? verified.subject : verified && (await findUserByIdentity(deps.db, verified.issuer, verified.subject))?.id;
          if (verified && ownerId === principal.userId) await deps.revocations.revoke(verified.jti, verified.expiresAt);
        } else if (await revokeAppRefreshToken(deps.db, body.token, { userId: principal.userId, accessTokenTtlMs: deps.accessTokenTtlMs })) {
          // An app's refresh token acting for the caller: its whole grant went, as at /oauth/revoke.
        } else if (await revokeRefreshToken(deps.db, body.token, principal.userId)) {
          await deps.identity.revoke(body.token, 'refresh_token');
        }
        ctx.status = 204;
      },
    }),
  ];
}
