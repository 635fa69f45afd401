// The authorization server for third-party apps: oidc-provider (OpenID Certified), configured, on the API's origin, with its records in PostgreSQL
// (oauth_server_records); apps, consent and signing keys stay Rally's. Where Rally's spec asks for something the provider does not do, a named adapter beside
// this file does it.
import { createHmac } from 'node:crypto';
import Provider, { errors, type Configuration, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { createOidcStorage } from '../../../db/oidc-provider-storage.ts';
import { listAsRevoked } from '../../../core/oauth/grants.ts';
import type { OAuthSigner } from '../../../core/oauth/signing-key.ts';
import { consentedScopes } from '../../../core/oauth/user-authorizations.ts';
import type { UserDirectory } from '../../../core/users/directory.ts';
import type { Logger } from '../../../platform/logger.ts';
import { OAUTH_SCOPES } from '../../../core/vocabulary.ts';
import type { CookiePolicy } from '../../http/cookies.ts';
import type { RallyContext } from '../../http/context.ts';
import { compareSecretsWithRallysHashes, createClientStore } from './client-store.ts';
import { grantScopes } from './grant-scopes.ts';
import { actAsRallyUser } from './acting-user.ts';
import { customizeAccessToken } from './owner-tokens.ts';
import { renderProviderError } from './pages.ts';
import { answerConsentInteractions } from './consent.ts';
import { endProviderSession, providerCookies, writeCookiesByPolicy } from './cookies.ts';
import { answerAsTheSpecSays } from './spec-answers.ts';
import { answerStructuredTokens, isPublic, publicClientRefused } from './structured-tokens.ts';

export type AppAuthorizationServerOptions = {
  db: DatabasePool;
  signer: OAuthSigner;
  users: UserDirectory;
  /** PUBLIC_URL: the issuer of app tokens and the audience they are for (the API). */
  publicUrl: string;
  lifetimes: { accessTokenTtlMs: number; refreshTokenTtlMs: number };
  encryptionKey: string;
  trustProxy: boolean;
  /** Rally's cookie policy (api/http/cookies.ts): the provider's cookies follow it. */
  cookies: CookiePolicy;
  log: Logger;
};

export type AppAuthorizationServer = {
  provider(): Provider;
  /** Ends this browser's session with the provider and clears its cookies (Rally's logout). */
  endBrowserSession(ctx: RallyContext): Promise<void>;
};

const seconds = (ms: number) => Math.ceil(ms / 1000);
const epochSeconds = () => Math.floor(Date.now() / 1000);

function scopesRequested(ctx: KoaContextWithOIDC): string[] {
  const { params, client } = ctx.oidc;
  const scope = typeof params?.scope === 'string' ? params.scope : (client?.scope ?? '');
  return [...new Set(scope.split(' ').filter(Boolean))];
}

// Configured rather than written: PKCE S256 for every client, refresh tokens rotated with reuse detection (a
// replayed one ends its grant), `iss` in every authorization response (RFC 9207), resource indicators so access
// tokens are RFC 9068 JWTs for the API, codes good for a minute, RFC 7009 revocation and RFC 7662
// introspection.
function configuration(options: AppAuthorizationServerOptions): Configuration {
  const { db, signer, publicUrl: audience, lifetimes } = options;
  const accessTokenTTL = seconds(lifetimes.accessTokenTtlMs);
  const refreshTokenTTL = seconds(lifetimes.refreshTokenTtlMs);
  const resourceServer = (): ResourceServer => ({
    scope: OAUTH_SCOPES.join(' '),
    audience,
    accessTokenFormat: 'jwt',
    accessTokenTTL,
    // The key that signs now (core/oauth/signing-key-rotation.ts), chosen per token.
    jwt: { sign: { alg: 'RS256', kid: signer.signingKey().kid } },
  });
  const storage = createOidcStorage(db, {
    table: 'oauth_server_records',
    // A grant the provider ends (replayed code or refresh token, revoked refresh token) takes its
    // access tokens with it on every API process.
    onGrantDestroyed: (tx, grantId) => listAsRevoked(tx, [grantId], lifetimes.accessTokenTtlMs),
  });
  const clients = createClientStore(db);
  return {
    adapter: (model) => (model === 'Client' ? clients : storage(model)),
    jwks: { keys: signer.privateJwks() },
    async findAccount(_ctx, id) {
      const user = await options.users.byUserId(id);
      return user && !user.suspended ? { accountId: user.id, claims: () => ({ sub: user.id }) } : undefined;
    },
    scopes: [...OAUTH_SCOPES],
    responseTypes: ['code'],
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    clientBasedCORS: () => false,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    // The spec requires state (it carries the app's own CSRF token back); the provider only passes it on.
    extraParams: {
      state: (_ctx, value) => {
        if (!value) throw new errors.InvalidRequest('the state parameter is required');
      },
    },
    cookies: providerCookies(options.cookies, [
      createHmac('sha256', Buffer.from(options.encryptionKey, 'hex')).update('rally oauth server cookies').digest('base64url'),
    ]),
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      revocation: '/oauth/revoke',
      introspection: '/oauth/introspect',
      // Rally serves its keys (/oauth/jwks) and metadata itself; these two are never reached.
      jwks: '/oauth/provider/jwks',
      end_session: '/oauth/provider/end-session',
    },
    // A repeat request for scopes the user already approved goes straight back to the app.
    async loadExistingGrant(ctx) {
      const { client, session, result, provider } = ctx.oidc;
      if (result?.consent?.grantId) return provider.Grant.find(result.consent.grantId);
      if (!client || !session?.accountId) return undefined;
      const requested = scopesRequested(ctx);
      const consented = await consentedScopes(db, session.accountId, client.clientId);
      if (requested.length === 0 || !requested.every((scope) => consented.includes(scope))) return undefined;
      const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grantScopes(grant, audience, requested);
      await grant.save();
      return grant;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    formats: { customizers: { jwt: (ctx, token, jwt) => customizeAccessToken(db, ctx, token, jwt) } },
    renderError: renderProviderError,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // An app asks only about its own tokens (RFC 7662 2.2, RFC 7009 2.1), and only an app that
      // proves who it is may ask at all (RFC 7662 2.1).
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => {
          if (isPublic(client)) throw publicClientRefused();
          return token.clientId === client.clientId;
        },
      },
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== audience) throw new errors.InvalidTarget();
          return resourceServer();
        },
      },
    },
    ttl: {
      AuthorizationCode: 60,
      AccessToken: accessTokenTTL,
      ClientCredentials: accessTokenTTL,
      Interaction: 10 * 60,
      Session: 10 * 60,
      Grant: refreshTokenTTL,
      // Counted from the code exchange: rotation never stretches a grant beyond RALLY_REFRESH_TOKEN_TTL.
      RefreshToken: (_ctx, token) => Math.max(1, refreshTokenTTL - (epochSeconds() - (token.iiat ?? epochSeconds()))),
    },
  };
}

function build(options: AppAuthorizationServerOptions): Provider {
  const provider = new Provider(options.publicUrl, configuration(options));
  provider.proxy = options.trustProxy;
  // Only our own faults: a client's bad request is answered, not logged, and no parameter is written out.
  provider.on('server_error', (ctx, error) => options.log.error('OAuth request failed', { path: ctx.path, error: error.message }));
  writeCookiesByPolicy(provider, options.cookies);
  compareSecretsWithRallysHashes(provider, options.db);
  actAsRallyUser(provider);
  provider.use(answerAsTheSpecSays);
  provider.use(answerConsentInteractions({ audience: options.publicUrl, db: options.db }));
  provider.use(answerStructuredTokens({ db: options.db, signer: options.signer }));
  return provider;
}

/** One provider per API process, rebuilt when the signing keys change (its key set is fixed at construction). */
export function createAppAuthorizationServer(options: AppAuthorizationServerOptions): AppAuthorizationServer {
  let current = build(options);
  options.signer.onChange(() => {
    current = build(options);
  });
  return {
    provider: () => current,
    async endBrowserSession(ctx) {
      for (const cookie of await endProviderSession(current, options.cookies, ctx)) ctx.append('Set-Cookie', cookie);
    },
  };
}
