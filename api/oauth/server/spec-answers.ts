// Two answers of oidc-provider that Rally's spec and RFC 6749 word differently, rewritten in the
// provider's own middleware before it writes them. Each is matched by the provider's description,
// so an upgrade that rewords one fails test/api/oauth-token.test.ts rather than changing silently.
import type { KoaContextWithOIDC } from 'oidc-provider';
import { AUTHORIZATION_ROUTES } from './consent.ts';

// RFC 6749 5.2: a client using a grant type it is not registered for is unauthorized_client, and a
// request that names no client at all failed client authentication (invalid_client, 401).
const GRANT_TYPE_NOT_ALLOWED = 'requested grant type is not allowed for this client';
const NO_CLIENT_AUTHENTICATION = 'no client authentication mechanism provided';

export async function answerAsTheSpecSays(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  await next();
  const route = ctx.oidc?.route ?? '';
  // The spec answers /oauth/authorize with 302; the provider's 303 means the same to a GET.
  if (ctx.method === 'GET' && ctx.status === 303 && AUTHORIZATION_ROUTES.has(route)) ctx.status = 302;
  const body = ctx.body as { error?: string; error_description?: string } | undefined;
  if (body?.error !== 'invalid_request') return;
  if (route === 'token' && body.error_description === GRANT_TYPE_NOT_ALLOWED) body.error = 'unauthorized_client';
  if (body.error_description === NO_CLIENT_AUTHENTICATION) {
    ctx.status = 401;
    body.error = 'invalid_client';
  }
}
