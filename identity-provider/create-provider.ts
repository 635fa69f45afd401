// The embedded OpenID Connect provider Rally runs when OIDC_ISSUER is unset: oidc-provider with accounts, artifacts and signing keys in PostgreSQL, and only
// the grants Rally uses (password and refresh_token for the API's login, authorization_code with PKCE for browser logins; screens in interactions.ts). Access
// tokens are JWTs for the API (audience = its public URL), verified against the published keys without calling back here.
import { createHmac } from 'node:crypto';
import type { RequestListener } from 'node:http';
import Provider, { errors, type Account, type ClientMetadata, type FindAccount, type ResourceServer } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import type { LoginThrottle } from '../core/auth/login-throttle.ts';
import type { RotatingSigningKeys } from '../core/auth/rotating-signing-keys.ts';
import type { Logger } from '../platform/logger.ts';
import type { Mailer } from '../platform/mailer.ts';
import { findIdentityAccount, prepareDummyHash } from './accounts.ts';
import { createInteractionRoutes } from './interactions.ts';
import { ACCESS_TOKEN_SCOPES, PASSWORD_GRANT_TYPE, SUPPORTED_SCOPES, registerPasswordGrant } from './password-grant.ts';
import { createOidcStorage } from '../db/oidc-provider-storage.ts';

export type IdentityProviderOptions = {
  issuer: string;
  db: DatabasePool;
  clients: ReadonlyArray<{ client_id: string; client_secret: string }>;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** The API's identifier, put in every access token's `aud`. */
  resourceAudience: string;
  /** Config.encryptionKey (RALLY_ENCRYPTION_KEY): derives the cookie keys. */
  encryptionKey: string;
  /** The rotating signing keys (identity-provider/signing-keys.ts). */
  signingKeys: RotatingSigningKeys;
  /** Rally's PUBLIC_URL: its browser login comes back to /auth/callback there. */
  rallyUrl: string;
  mailer: Mailer;
  throttle: LoginThrottle;
  log: Logger;
};

/** What the process serves: the provider built for the keys of the moment. */
export type IdentityProviderServer = { callback(): RequestListener };

/** Rally's browser login returns here (site/account/login-routes.ts). */
export const rallyCallbackUrl = (rallyUrl: string) => `${rallyUrl}/auth/callback`;

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

// Confidential clients run by Rally itself: the API (password, refresh) and its browser login, whose
// only redirect is Rally's own callback.
function clientMetadata(client: { client_id: string; client_secret: string }, rallyUrl: string): ClientMetadata {
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    grant_types: [PASSWORD_GRANT_TYPE, 'refresh_token', 'authorization_code'],
    response_types: ['code'],
    redirect_uris: [rallyCallbackUrl(rallyUrl)],
    // openid-client's default when given a secret.
    token_endpoint_auth_method: 'client_secret_post',
  };
}

function build(options: IdentityProviderOptions): { kid: string; handle: RequestListener } {
  const { db, resourceAudience, accessTokenTtlSeconds, refreshTokenTtlSeconds } = options;
  // The key that signs now (core/auth/signing-key-rotation.ts) signs access tokens by kid, and ID tokens
  // as the keystore's first key; the others are in the keystore to be published (/jwks) and to verify.
  const { kid } = options.signingKeys.signingKey();
  const resourceServer: ResourceServer = {
    scope: ACCESS_TOKEN_SCOPES.join(' '),
    audience: resourceAudience,
    accessTokenFormat: 'jwt',
    accessTokenTTL: accessTokenTtlSeconds,
    jwt: { sign: { alg: 'RS256', kid } },
  };

  const findAccount: FindAccount = async (_ctx, sub) => {
    const account = await findIdentityAccount(db, sub);
    return account && toOidcAccount(account);
  };

  const provider = new Provider(options.issuer, {
    adapter: createOidcStorage(db, { table: 'identity_provider_records' }),
    clients: options.clients.map((client) => clientMetadata(client, options.rallyUrl)),
    jwks: { keys: options.signingKeys.privateJwks() },
    findAccount,
    scopes: [...SUPPORTED_SCOPES],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Only the API calls the token endpoints, server to server: no browser origin is ever allowed.
    clientBasedCORS: () => false,
    // The code flow only (no implicit or hybrid tokens in URLs); PKCE is required of every client.
    responseTypes: ['code'],
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // rally_screen=signup opens the sign-up form instead of the login form (Rally's GET /signup).
    extraParams: ['rally_screen'],
    cookies: { keys: [createHmac('sha256', Buffer.from(options.encryptionKey, 'hex')).update('rally identity provider cookies').digest('base64url')] },
    // Rally is the provider's own first-party client: what it asks for is granted without a consent screen.
    loadExistingGrant: async (ctx) => {
      const { client, session, result } = ctx.oidc;
      const existing = result?.consent?.grantId ?? (client && session?.grantIdFor(client.clientId));
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      if (!client || !session?.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope(ACCESS_TOKEN_SCOPES.join(' '));
      grant.addResourceScope(resourceAudience, ACCESS_TOKEN_SCOPES.join(' '));
      await grant.save();
      return grant;
    },
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
      // A browser login: half an hour to type a password or sign up; the code is traded at once.
      // Rally keeps its own session afterwards, so the provider's own is short.
      Interaction: 30 * 60,
      Session: 60 * 60,
      AuthorizationCode: 60,
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
  provider.use(
    createInteractionRoutes(provider, { db, mailer: options.mailer, throttle: options.throttle, issuer: options.issuer, rallyUrl: options.rallyUrl }),
  );
  // Only our own faults: client errors (a wrong password, say) are answered, not logged, and no
  // request parameter is ever written out.
  provider.on('server_error', (ctx, error) => options.log.error('request failed', { path: ctx.path, error: error.message }));
  return { kid, handle: provider.callback() };
}

/**
 * oidc-provider's keystore is fixed when it is built, so the provider is built again, at the next
 * request, once the keys change (a rotation's NOTIFY) or the next key's signs_from has come. Its
 * state is all in PostgreSQL: nothing is lost.
 */
export async function createIdentityProvider(options: IdentityProviderOptions): Promise<IdentityProviderServer> {
  await prepareDummyHash();
  let current = build(options);
  let keysChanged = false;
  options.signingKeys.onChange(() => (keysChanged = true));
  function latest() {
    if (keysChanged || current.kid !== options.signingKeys.signingKey().kid) {
      keysChanged = false;
      current = build(options);
    }
    return current;
  }
  return { callback: () => (request, response) => latest().handle(request, response) };
}
