// POST /oauth/introspect (RFC 7662): a confidential app asks whether one of its tokens is still
// good, and what it carries. Public clients cannot authenticate, so they are refused (RFC 7662 2.1
// wants the caller authenticated); another client's token is answered {active: false} (2.2).
import type { DatabasePool } from 'slonik';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { introspectAppToken } from '../../core/oauth/introspection.ts';
import type { OAuthSigner } from '../../core/oauth/signing-key.ts';
import { OAuthError } from '../../core/oauth/token-errors.ts';
import { answerClientRequest, authenticatedClient } from './client-auth.ts';
import { OAuthIntrospection, OAuthTokenError } from './schemas.ts';

export function createOAuthIntrospectionRoutes(deps: { db: DatabasePool; signer: OAuthSigner }): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/oauth/introspect',
      operationId: 'introspectAppToken',
      idempotent: false,
      tag: 'OAuth 2.0',
      auth: 'none',
      rawBody: true,
      summary: 'Whether an app token is active and what it carries (RFC 7662), for the confidential client it was issued to',
      responses: {
        200: { description: '{active: true, ...} for a live token of this client; {active: false} otherwise', schema: OAuthIntrospection },
        400: { description: 'RFC 6749 error (invalid_request)', schema: OAuthTokenError },
        401: { description: 'Client authentication failed, or the client is public', schema: OAuthTokenError },
      },
      async handler(ctx) {
        await answerClientRequest(ctx, async (params) => {
          const client = await authenticatedClient(deps.db, ctx, params);
          if (!client.confidential) throw new OAuthError('invalid_client', 'Only a confidential client, with its secret, may introspect tokens.', 401);
          if (!params.token) throw new OAuthError('invalid_request', 'token is required.');
          ctx.body = await introspectAppToken(deps, params.token, client.client_id);
        });
      },
    }),
  ];
}
