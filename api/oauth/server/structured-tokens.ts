// The named adapter for JWT access tokens at /oauth/revoke and /oauth/introspect: oidc-provider authenticates the client, then refuses structured tokens, as no
// store of its own says a JWT is revoked. Rally's revocation list does, so for that client Rally revokes the token there (RFC 7009) or says whether it is still
// honoured (RFC 7662). Refresh tokens and everything else stay the provider's.
import { errors, type Client, type KoaContextWithOIDC } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { introspectAppAccessToken } from '../../../core/oauth/introspection.ts';
import { revokeAppAccessToken } from '../../../core/oauth/revocation.ts';
import type { OAuthSigner } from '../../../core/oauth/signing-key.ts';

const refusedAsStructured = (ctx: KoaContextWithOIDC) =>
  ctx.status === 400 && (ctx.body as { error?: unknown } | undefined)?.error === 'unsupported_token_type';

/** A client without a secret cannot prove who it is, so it may not introspect (RFC 7662 2.1). */
export const isPublic = (client: Client) => client.clientAuthMethod === 'none';
export function publicClientRefused() {
  const refused = new errors.InvalidClient('only a confidential client, with its secret, may introspect tokens');
  // 401, as for every failed client authentication at Rally (RFC 6749 5.2 allows it).
  return Object.assign(refused, { status: 401, statusCode: 401 });
}

export function answerStructuredTokens(deps: { db: DatabasePool; signer: OAuthSigner }) {
  return async function answerStructuredTokens(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    await next();
    const route = ctx.oidc?.route;
    if ((route !== 'revocation' && route !== 'introspection') || !refusedAsStructured(ctx)) return;
    const client = ctx.oidc.client;
    const token = ctx.oidc.params?.token;
    if (!client || typeof token !== 'string') return;
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    if (route === 'revocation') {
      await revokeAppAccessToken(deps.db, deps.signer, token, { clientId: client.clientId });
      ctx.body = '';
    } else if (isPublic(client)) {
      const refused = publicClientRefused();
      ctx.status = refused.statusCode;
      ctx.body = { error: refused.error, error_description: refused.error_description };
    } else {
      ctx.body = await introspectAppAccessToken(deps, token, client.clientId);
    }
  };
}
