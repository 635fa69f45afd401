// The apps oidc-provider serves are Rally's own registrations (oauth_clients), read through the provider's `Client` model, so changes take effect on the next
// request on every API process. Rally keeps only a SHA-256 of each client secret, so the provider is never given one; its one comparison is replaced by
// Rally's.
import type { Adapter, ClientMetadata, Provider } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { findClient, secretMatches, type OAuthClient } from '../../../core/oauth/clients.ts';

// Stands where the provider's schema wants a secret. It signs and compares nothing: no client may
// use the HS* algorithms that would read it, and compareClientSecret is Rally's.
const NO_SECRET_HELD = 'rally-keeps-only-a-hash-of-this-secret';

function metadataOf(client: OAuthClient): ClientMetadata {
  return {
    client_id: client.client_id,
    client_name: client.name,
    redirect_uris: client.redirect_uris,
    response_types: ['code'],
    scope: client.scopes.join(' '),
    ...(client.confidential
      ? {
          client_secret: NO_SECRET_HELD,
          grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
          token_endpoint_auth_method: 'client_secret_basic',
        }
      : { grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }),
  };
}

/** The provider's `Client` model, read-only: apps are written by Rally's CLI and /v1/oauth/apps. */
export function createClientStore(db: DatabasePool): Adapter {
  const readOnly = async () => {
    throw new Error('OAuth apps are registered through Rally, not through the provider');
  };
  return {
    async find(clientId) {
      const client = await findClient(db, clientId);
      return client ? metadataOf(client) : undefined;
    },
    upsert: readOnly,
    destroy: readOnly,
    consume: readOnly,
    revokeByGrantId: readOnly,
    findByUid: readOnly,
    findByUserCode: readOnly,
  };
}

/**
 * Client secrets are checked against Rally's stored hashes (current and, during its grace, previous).
 * Replaces Client#compareClientSecret with core/oauth/clients.ts secretMatches (constant time, and a
 * rotated-out secret counts until its grace period ends). This override is the one place Rally reaches into the
 * provider's models.
 */
export function compareSecretsWithRallysHashes(provider: Provider, db: DatabasePool): void {
  provider.Client.prototype.compareClientSecret = async function compareClientSecret(this: { clientId: string }, presented: string) {
    const client = await findClient(db, this.clientId);
    return client !== null && secretMatches(client, presented);
  };
}
