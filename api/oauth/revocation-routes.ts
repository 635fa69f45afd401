// POST /oauth/revoke (RFC 7009): an app gives back a refresh token (its whole grant goes with it) or
// one access token. The client authenticates as at /oauth/token; a token that is unknown, expired or
// another client's is answered 200 all the same (RFC 7009 2.2), so the endpoint tells nothing.
import { OAuthTokenError } from './schemas.ts';
import type { DatabasePool } from 'slonik';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { revokeAppToken } from '../../core/oauth/revocation.ts';
import type { OAuthSigner } from '../../core/oauth/signing-key.ts';
import { OAuthError } from '../../core/oauth/token-errors.ts';
import { answerClientRequest, authenticatedClient } from './client-auth.ts';

export function createOAuthRevocationRoutes(deps: { db: DatabasePool; signer: OAuthSigner }): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/oauth/revoke',
      operationId: 'revokeAppToken',
      idempotent: false,
      tag: 'OAuth 2.0',
      auth: 'none',
      rawBody: true,
      summary: 'Revoke an app token (RFC 7009): a refresh token with every token of its grant, or one access token, on every API process',
      responses: {
        200: { description: 'Revoked, or there was nothing of this client to revoke' },
        400: { description: 'RFC 6749 error (invalid_request)', schema: OAuthTokenError },
        401: { description: 'Client authentication failed', schema: OAuthTokenError },
      },
      async handler(ctx) {
        await answerClientRequest(ctx, async (params) => {
          const client = await authenticatedClient(deps.db, ctx, params);
          if (!params.token) throw new OAuthError('invalid_request', 'token is required.');
          await revokeAppToken(deps, params.token, { clientId: client.client_id });
          ctx.status = 200;
          ctx.body = {};
        });
      },
    }),
  ];
}
