// OAuth 2.0 for third-party apps, at the spec's paths: Rally declares each route (rate limit, credentials, OpenAPI entry) and hands the protocol to
// oidc-provider (api/oauth/server/). Rally answers the RFC 8414 metadata and the key set itself (its keys rotate on a schedule), and the spec's wire details in
// front of the provider: a Bearer as login proof at /oauth/authorize, a JSON body at /oauth/token, 401 token_expired for an expired refresh token.
import { Type, type TSchema } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { isExpiredRefreshToken } from '../../core/oauth/grants.ts';
import type { OAuthSigner } from '../../core/oauth/signing-key.ts';
import { hashTokenValue } from '../../db/oidc-provider-storage.ts';
import { OAUTH_SCOPES } from '../../core/vocabulary.ts';
import type { RallyContext } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import type { BrowserSessions } from '../http/browser-session.ts';
import { sendToLogin } from './browser-login.ts';
import { BodyError, readParameters } from './request-body.ts';
import { OAuthIntrospection, OAuthIntrospectionRequest, OAuthRevocationRequest, OAuthTokenError, OAuthTokenRequest } from './schemas.ts';
import { vouchForUser } from './server/acting-user.ts';
import { decideConsent } from './server/consent.ts';
import { defaultAuthorizationScope, defaultClientCredentialsScope } from './server/default-scopes.ts';
import { serveWithProvider, writeAnswerDirectly } from './server/delegate.ts';
import { sendErrorPage } from './server/pages.ts';
import type { AppAuthorizationServer } from './server/provider.ts';

const tag = 'OAuth 2.0';
const InteractionParams = Type.Object({ uid: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }) });
const NOT_FROM_OUR_PAGE = "This answer can only be sent from Rally's consent screen. Start again from the app.";
const NOT_YOUR_SCREEN =
  'This consent screen was shown to another account than the one logged in to Rally in this browser. Log in as that account, or start again from the app.';

export type OAuthRouteDependencies = {
  db: DatabasePool;
  signer: OAuthSigner;
  server: AppAuthorizationServer;
  publicUrl: string;
  browserSessions: BrowserSessions;
};

function answerOAuthError(ctx: RallyContext, status: 400 | 401, error: string, description: string) {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** Authorization server metadata (RFC 8414), so OAuth clients configure themselves. */
function authorizationServerMetadata(issuer: string, publicUrl: string) {
  return {
    issuer,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    revocation_endpoint: `${publicUrl}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint: `${publicUrl}/oauth/introspect`,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    jwks_uri: `${publicUrl}/oauth/jwks`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${publicUrl}/docs`,
  };
}

/** The parameters of a client's POST (form-encoded, or JSON as the spec allows), for the provider. */
async function clientRequest(ctx: RallyContext, answer: (params: Record<string, string>) => Promise<void>) {
  let params: Record<string, string>;
  try {
    params = await readParameters(ctx);
  } catch (error) {
    if (error instanceof BodyError) return answerOAuthError(ctx, 400, 'invalid_request', error.message);
    throw error;
  }
  await answer(params);
}

export function createOAuthRoutes(deps: OAuthRouteDependencies): AnyRouteSpec[] {
  const { db, signer, server, publicUrl } = deps;
  const https = publicUrl.startsWith('https:');
  const metadata = authorizationServerMetadata(signer.issuer, publicUrl);

  /** Revocation and introspection: the client's parameters, as the provider reads them. */
  const handToProvider = (ctx: RallyContext) => clientRequest(ctx, (params) => serveWithProvider(ctx, server.provider(), { https, params }));
  const clientEndpoint = { tag, auth: 'none', rawBody: true, idempotent: false, method: 'post' } as const;
  /** Both forms a client endpoint reads (request-body.ts), for the reference. */
  const formOrJson = (schema: TSchema) => ({ 'application/x-www-form-urlencoded': schema, 'application/json': schema });
  return [
    defineRoute({
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      operationId: 'getOAuthMetadata',
      tag,
      auth: 'none',
      summary: 'Get authorization server metadata',
      description: 'Authorization server metadata (RFC 8414), so OAuth clients configure themselves.',
      responses: { 200: { description: 'The metadata' } },
      async handler(ctx) {
        ctx.body = metadata;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/oauth/jwks',
      operationId: 'getOAuthKeys',
      tag,
      auth: 'none',
      summary: 'Get the token signing keys',
      description: 'The public keys app access tokens are signed with.',
      responses: { 200: { description: 'A JSON Web Key Set' } },
      async handler(ctx) {
        // A new key is published a day before it signs (core/oauth/signing-key-rotation.ts): an hour's cache never misses one.
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = signer.publishedJwks();
      },
    }),
    ...createAuthorizationRoutes(deps),
    defineRoute({
      ...clientEndpoint,
      path: '/oauth/token',
      operationId: 'issueAppTokens',
      requestContent: formOrJson(OAuthTokenRequest),
      summary: 'Issue app tokens',
      description: 'Exchange a code, a refresh token or client credentials for tokens (form-encoded or JSON).',
      responses: {
        200: { description: '{access_token, token_type, expires_in, refresh_token, scope}' },
        400: { description: 'RFC 6749 error', schema: OAuthTokenError },
        401: { description: 'Client authentication failed, or token_expired', schema: OAuthTokenError },
      },
      async handler(ctx) {
        await clientRequest(ctx, async (params) => {
          if (params.grant_type === 'refresh_token' && params.refresh_token && (await isExpiredRefreshToken(db, hashTokenValue(params.refresh_token)))) {
            return answerOAuthError(ctx, 401, 'token_expired', 'The refresh token has expired; send the user through authorization again.');
          }
          await defaultClientCredentialsScope(ctx, db, params);
          await serveWithProvider(ctx, server.provider(), { https, params });
        });
      },
    }),
    defineRoute({
      ...clientEndpoint,
      path: '/oauth/revoke',
      operationId: 'revokeAppToken',
      requestContent: formOrJson(OAuthRevocationRequest),
      summary: 'Revoke an app token',
      description: 'Revoke an app token (RFC 7009): a refresh token with every token of its grant, or one access token, on every API process.',
      responses: {
        200: { description: 'Revoked, or there was nothing of this client to revoke' },
        400: { description: 'RFC 6749 error (invalid_request)', schema: OAuthTokenError },
        401: { description: 'Client authentication failed', schema: OAuthTokenError },
      },
      handler: handToProvider,
    }),
    defineRoute({
      ...clientEndpoint,
      path: '/oauth/introspect',
      operationId: 'introspectAppToken',
      requestContent: formOrJson(OAuthIntrospectionRequest),
      summary: 'Introspect an app token',
      description: 'Whether an app token is active and what it carries (RFC 7662), for the confidential client it was issued to.',
      responses: {
        200: { description: '{active: true, ...} for a live token of this client; {active: false} otherwise', schema: OAuthIntrospection },
        400: { description: 'RFC 6749 error (invalid_request)', schema: OAuthTokenError },
        401: { description: 'Client authentication failed, or the client is public', schema: OAuthTokenError },
      },
      handler: handToProvider,
    }),
  ];
}

/** The authorization code flow's browser side: authorize, resume after login, and the consent form's decision. */
function createAuthorizationRoutes(deps: OAuthRouteDependencies): AnyRouteSpec[] {
  const { db, server, publicUrl, browserSessions } = deps;
  const https = publicUrl.startsWith('https:');

  /** Who decides at authorize and on the consent form: the user of a Bearer (the spec's form), else the browser's Rally login. */
  async function deciderOf(ctx: RallyContext): Promise<string | undefined> {
    const principal = ctx.state.principal;
    if (principal && principal.kind !== 'user')
      throw new RallyError('forbidden', 'Only a user logged in with their own access token can authorize apps.', { code: 'user_token_required' });
    return principal?.userId ?? (await browserSessions.current(ctx))?.user.id;
  }

  return [
    defineRoute({
      method: 'get',
      path: '/oauth/authorize',
      operationId: 'authorizeApp',
      tag,
      auth: 'optional',
      scope: NOT_FOR_APPS,
      summary: 'Authorize an app',
      description: 'Ask the logged-in user to let an app act for them (consent screen), or answer a repeat grant at once.',
      responses: {
        200: { description: 'The consent screen', contentType: 'text/html' },
        302: { description: 'Back to the app with a code or an error; a browser without a Bearer (Accept: text/html) to /login?return_to=…' },
        400: { description: 'Unknown client or unregistered redirect_uri (a page; never a redirect)', contentType: 'text/html' },
        401: { description: 'No Bearer, from a client that is not a browser' },
      },
      async handler(ctx) {
        // A browser with neither a Bearer nor a Rally login goes to /login and comes back here.
        const userId = await deciderOf(ctx);
        if (!userId) return sendToLogin(ctx);
        vouchForUser(ctx.req, userId);
        await defaultAuthorizationScope(ctx, db);
        await serveWithProvider(ctx, server.provider(), { https });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/oauth/authorize/:uid',
      operationId: 'resumeAppAuthorization',
      browser: true,
      tag,
      auth: 'none',
      summary: 'Where the consent form returns: the authorization request resumes and goes back to the app',
      params: InteractionParams,
      responses: {
        302: { description: 'Back to the app with a code or error=access_denied' },
        400: { description: 'This browser holds no such authorization request', contentType: 'text/html' },
      },
      async handler(ctx) {
        await serveWithProvider(ctx, server.provider(), { https });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/oauth/interaction/:uid',
      operationId: 'decideAppAuthorization',
      browser: true,
      idempotent: false,
      tag,
      auth: 'optional',
      scope: NOT_FOR_APPS,
      rawBody: true,
      summary: "The consent form's answer, approve or deny: from Rally's page, in the browser shown the screen, by the account it was shown to",
      params: InteractionParams,
      responses: {
        303: { description: 'On to the authorization request, which goes back to the app' },
        400: { description: 'No consent screen of this browser', contentType: 'text/html' },
        403: {
          description: "Not sent from Rally's own page (Origin, Sec-Fetch-Site), or not by the account the screen was shown to (its Bearer or Rally login)",
          contentType: 'text/html',
        },
      },
      async handler(ctx, { params }) {
        const form = await readParameters(ctx).catch((error: unknown) => {
          if (error instanceof BodyError) return undefined;
          throw error;
        });
        if (!browserSessions.fromOwnPage(ctx)) return sendErrorPage(ctx, NOT_FROM_OUR_PAGE, 403);
        const decision = form?.decision;
        if (decision !== 'approve' && decision !== 'deny') return sendErrorPage(ctx, 'Choose Approve or Deny.');
        const decider = await deciderOf(ctx);
        writeAnswerDirectly(ctx, https);
        const outcome = await decideConsent({ provider: server.provider(), db, audience: publicUrl }, ctx, { uid: params.uid, decision, decider });
        if (outcome !== 'decided') {
          ctx.respond = true;
          if (outcome === 'not_yours') sendErrorPage(ctx, NOT_YOUR_SCREEN, 403);
          else sendErrorPage(ctx, 'This consent form was shown in another browser, has expired or was already used. Start again from the app.');
        }
      },
    }),
  ];
}
