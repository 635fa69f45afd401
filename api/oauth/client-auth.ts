// How an app authenticates at the token and revocation endpoints (RFC 6749 2.3.1): client_secret_basic
// (each part form-encoded inside Basic) or client_secret_post, never both; a public client sends its
// client_id alone. The secret itself is checked by core/oauth/grants.ts authenticateClient.
import type { DatabasePool } from 'slonik';
import type { RallyContext } from '../http/context.ts';
import { authenticateClient } from '../../core/oauth/grants.ts';
import { OAuthError } from '../../core/oauth/token-errors.ts';
import { BodyError, readParameters } from './request-body.ts';

/** client_secret_basic (RFC 6749 2.3.1: each part form-encoded) or client_secret_post; never both. */
export function clientCredentialsOf(ctx: RallyContext, params: Record<string, string>) {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(ctx.get('Authorization'));
  if (!match) return { clientId: params.client_id, clientSecret: params.client_secret };
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'The Basic credentials must be client_id:client_secret.', 401);
  let clientId: string;
  let clientSecret: string;
  try {
    [clientId, clientSecret] = [decoded.slice(0, colon), decoded.slice(colon + 1)].map((part) => decodeURIComponent(part.replace(/\+/g, ' '))) as [
      string,
      string,
    ];
  } catch {
    throw new OAuthError('invalid_client', 'The Basic credentials are not form-encoded correctly.', 401);
  }
  if (params.client_secret !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method, not both.');
  if (params.client_id !== undefined && params.client_id !== clientId) throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials.');
  return { clientId, clientSecret };
}

/** Runs an endpoint's work, answering its OAuthError as RFC 6749 5.2 says (`{error, error_description}`). */
export async function answerOAuthErrors(ctx: RallyContext, work: () => Promise<void>) {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    ctx.status = error.status;
    if (error.error === 'invalid_client' && /^Basic/i.test(ctx.get('Authorization'))) ctx.set('WWW-Authenticate', 'Basic realm="rally"');
    ctx.body = { error: error.error, error_description: error.description };
  }
}

/** The client of a request to the token or revocation endpoint, authenticated (invalid_client otherwise). */
export const authenticatedClient = (db: DatabasePool, ctx: RallyContext, params: Record<string, string>) =>
  authenticateClient(db, clientCredentialsOf(ctx, params));

/**
 * An endpoint an app calls with its client credentials (RFC 6749 3.2, RFC 7009 2.1): never cached, its
 * parameters read form-encoded or as JSON, every OAuthError answered as RFC 6749 5.2 says.
 */
export async function answerClientRequest(ctx: RallyContext, work: (params: Record<string, string>) => Promise<void>) {
  ctx.set('Cache-Control', 'no-store');
  await answerOAuthErrors(ctx, async () => {
    const params = await readParameters(ctx).catch((error: unknown) => {
      throw error instanceof BodyError ? new OAuthError('invalid_request', error.message) : error;
    });
    await work(params);
  });
}
