// What Rally adds to the provider's JWT access tokens. Every token of the authorization code flow names its grant (`grant_id`), so ending a grant refuses its
// tokens at once (core/oauth/grants.ts).
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { findClient } from '../../../core/oauth/clients.ts';
import { GRANT_ID_CLAIM } from '../../../core/vocabulary.ts';
import { ownerAuthorization } from '../../../core/oauth/user-authorizations.ts';

type IssuedToken = { kind: string; clientId?: string; grantId?: string };
type StructuredToken = { payload: Record<string, unknown> };

// A client_credentials token acts for nobody (its subject is the app: public reads only, and its grant the
// app's registration, ended by deleting the app) unless the app has an owner: then it acts for the owner,
// within and while the owner's standing authorization (made at registration, listed and revocable under
// /v1/users/me/authorizations), which it names.
export async function customizeAccessToken(db: DatabasePool, _ctx: KoaContextWithOIDC, token: IssuedToken, jwt: StructuredToken): Promise<void> {
  if (token.grantId) {
    jwt.payload[GRANT_ID_CLAIM] = token.grantId;
    return;
  }
  if (token.kind !== 'ClientCredentials' || !token.clientId) return;
  const client = await findClient(db, token.clientId);
  if (!client) return;
  if (!client.owner_user_id) {
    // App-only: what it rests on is the app's registration, which deleting the app ends.
    jwt.payload[GRANT_ID_CLAIM] = client.client_id;
    return;
  }
  const authorization = await ownerAuthorization(db, client.owner_user_id, client.client_id);
  if (!authorization) throw new errors.UnauthorizedClient("the owner has revoked this app's authorization; they can grant it again at /oauth/authorize");
  const scopes = String(jwt.payload.scope ?? '')
    .split(' ')
    .filter((scope) => authorization.scopes.includes(scope));
  Object.assign(jwt.payload, { sub: client.owner_user_id, scope: scopes.join(' '), [GRANT_ID_CLAIM]: authorization.id });
}
