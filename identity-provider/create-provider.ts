// The embedded OpenID Connect provider Rally runs when OIDC_ISSUER is unset: oidc-provider with
// accounts, artifacts and signing keys in PostgreSQL, and only the grants Rally's API uses
// (password, refresh_token). Access tokens are JWTs for the API (audience = its public URL), so the
// API verifies them against the published keys without calling back here.
import Provider, { errors, type Account, type ClientMetadata, type FindAccount, type ResourceServer } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { findIdentityAccount, prepareDummyHash } from './accounts.ts';
import { ACCESS_TOKEN_SCOPES, PASSWORD_GRANT_TYPE, SUPPORTED_SCOPES, registerPasswordGrant } from './password-grant.ts';
import { loadOrCreateSigningKeys } from './signing-keys.ts';
import { createPostgresAdapterFactory } from './storage-adapter.ts';

export type IdentityProviderOptions = {
  issuer: string;
  db: DatabasePool;
  clients: ReadonlyArray<{ client_id: string; client_secret: string }>;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** The API's identifier, put in every access token's `aud`. */
  resourceAudience: string;
  /** Config.encryptionKey (RALLY_ENCRYPTION_KEY): seals the private signing keys at rest. */
  encryptionKey: string;
};

const epochSeconds = () => Math.floor(Date.now() / 1000);

function toOidcAccount(account: NonNullable<Awaited<ReturnType<typeof findIdentityAccount>>>): Account {
  return {
    accountId: account.id,
    claims: () => ({
      sub: account.id,
      email: account.email,
      email_verified: account.emailVerified,
      ...(account.displayName ? { name: account.displayName } : {}),
    }),
  };
}

// Confidential server-side clients only: no redirects, no browser flows.
function clientMetadata(client: { client_id: string; client_secret: string }): ClientMetadata {
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    grant_types: [PASSWORD_GRANT_TYPE, 'refresh_token'],
    response_types: [],
    redirect_uris: [],
    // openid-client's default when given a secret.
    token_endpoint_auth_method: 'client_secret_post',
  };
}

export async function createIdentityProvider(options: IdentityProviderOptions): Promise<Provider> {
  const { db, resourceAudience, accessTokenTtlSeconds, refreshTokenTtlSeconds } = options;
  const [signingKeys] = await Promise.all([loadOrCreateSigningKeys(db, options.encryptionKey), prepareDummyHash()]);

  const resourceServer: ResourceServer = {
    scope: ACCESS_TOKEN_SCOPES.join(' '),
    audience: resourceAudience,
    accessTokenFormat: 'jwt',
    accessTokenTTL: accessTokenTtlSeconds,
    jwt: { sign: { alg: 'RS256' } },
  };

  const findAccount: FindAccount = async (_ctx, sub) => {
    const account = await findIdentityAccount(db, sub);
    return account && toOidcAccount(account);
  };

  const provider = new Provider(options.issuer, {
    adapter: createPostgresAdapterFactory(db),
    clients: options.clients.map(clientMetadata),
    jwks: { keys: signingKeys },
    findAccount,
    scopes: [...SUPPORTED_SCOPES],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Only the API calls this provider, server to server: no browser origin is ever allowed.
    clientBasedCORS: () => false,
    // No browser flows: with only "none" the authorization endpoint can issue nothing, and
    // discovery lists no authorization_code or implicit grant.
    responseTypes: ['none'],
    // Required by oidc-provider even though no client can start an interaction; never served.
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: true },
      // Access tokens are for the API, not for a userinfo endpoint; the ID token carries the claims.
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resourceAudience,
        // A refreshed access token is for the same API as the first one.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== resourceAudience) throw new errors.InvalidTarget();
          return resourceServer;
        },
      },
    },
    // Each refresh answers with a new refresh token; replaying a used one revokes the whole grant.
    rotateRefreshToken: true,
    ttl: {
      AccessToken: accessTokenTtlSeconds,
      IdToken: accessTokenTtlSeconds,
      // A grant only has to outlive its longest token: without offline_access that is the access token.
      Grant: (_ctx, grant) => (grant.getOIDCScope().split(' ').includes('offline_access') ? refreshTokenTtlSeconds : accessTokenTtlSeconds),
      // Counted from the login, not from the last refresh: rotation never stretches a session
      // beyond refreshTokenTtlSeconds (the grant expires then too).
      RefreshToken: (_ctx, token) => Math.max(1, refreshTokenTtlSeconds - (epochSeconds() - (token.iiat ?? epochSeconds()))),
    },
  });

  registerPasswordGrant(provider, { db, findAccount, resourceAudience, resourceServer });
  return provider;
}
