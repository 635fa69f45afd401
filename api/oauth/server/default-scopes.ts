// A request that names no scope gets the app's registered scopes (RFC 6749 3.3 lets the server define that default). The provider would grant none, so the
// default is written into the request before it runs (the authorization query or the client_credentials parameters); the provider still authenticates the
// client and checks the scopes against its registration.
import type { DatabasePool } from 'slonik';
import { findClient } from '../../../core/oauth/clients.ts';
import type { RallyContext } from '../../http/context.ts';

async function registeredScope(db: DatabasePool, clientId: string | undefined): Promise<string | undefined> {
  const client = clientId ? await findClient(db, clientId) : null;
  return client ? client.scopes.join(' ') : undefined;
}

/** The client id of a client_secret_basic header (RFC 6749 2.3.1), unverified; undefined if malformed. */
function basicClientId(authorization: string): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  try {
    return colon > 0 ? decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')) : undefined;
  } catch {
    return undefined;
  }
}

export async function defaultAuthorizationScope(ctx: RallyContext, db: DatabasePool): Promise<void> {
  if (ctx.query.scope !== undefined || typeof ctx.query.client_id !== 'string') return;
  const scope = await registeredScope(db, ctx.query.client_id);
  if (scope === undefined) return;
  const url = new URL(ctx.req.url ?? '/', 'http://rally.invalid');
  url.searchParams.set('scope', scope);
  ctx.req.url = `${url.pathname}${url.search}`;
}

export async function defaultClientCredentialsScope(ctx: RallyContext, db: DatabasePool, params: Record<string, string>): Promise<void> {
  if (params.grant_type !== 'client_credentials' || params.scope !== undefined) return;
  const scope = await registeredScope(db, params.client_id ?? basicClientId(ctx.get('Authorization')));
  if (scope !== undefined) params.scope = scope;
}
