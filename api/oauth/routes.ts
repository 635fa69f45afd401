// OAuth 2.0 for third-party apps: /oauth/authorize (consent), /oauth/token, the RFC 8414 metadata
// and the key set app tokens are signed with. Protocol answers follow RFC 6749 rather than Rally's
// envelopes: HTML for the user at /oauth/authorize, {error, error_description} at /oauth/token.
import type { DatabasePool } from 'slonik';
import type { RallyContext } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { NOT_FOR_APPS } from '../../core/auth/scopes.ts';
import { OAUTH_SCOPE_CATALOG } from '../../core/auth/scopes.ts';
import { OAUTH_SCOPES, type OAuthScope } from '../../core/vocabulary.ts';
import {
  alreadyGranted,
  approve,
  checkAuthorizationRequest,
  redirectWith,
  signConsentTicket,
  ticketOf,
  verifyConsentTicket,
} from '../../core/oauth/authorization.ts';
import { clientCredentials, exchangeCode, refresh, type GrantDependencies } from '../../core/oauth/grants.ts';
import { OAuthError } from '../../core/oauth/token-errors.ts';
import { OAuthTokenError } from './schemas.ts';
import { BodyError, readParameters } from './request-body.ts';
import { answerClientRequest, authenticatedClient } from './client-auth.ts';
import { bindBrowser, isSameBrowser } from './consent-binding.ts';
import { sendToLogin } from './browser-login.ts';
import type { BrowserSessions } from '../browser/session.ts';
import { sendConsentPage, sendErrorPage } from './pages.ts';

const tag = 'OAuth 2.0';
const GRANTS = { authorization_code: exchangeCode, refresh_token: refresh, client_credentials: clientCredentials } as const;

function redirect(ctx: RallyContext, location: string) {
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(location);
}

export function createOAuthRoutes(deps: GrantDependencies & { publicUrl: string; browserSessions: BrowserSessions }): AnyRouteSpec[] {
  const { db, signer, publicUrl, browserSessions } = deps;
  // RFC 9207: every authorization response names its issuer, so a client talking to several servers
  // can tell whose answer it got (mix-up attacks).
  const iss = signer.issuer;
  const metadata = {
    issuer: signer.issuer,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    revocation_endpoint: `${publicUrl}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint: `${publicUrl}/oauth/introspect`,
    // Only confidential clients: a public one cannot prove who it is (RFC 7662 2.1).
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    jwks_uri: `${publicUrl}/oauth/jwks`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: Object.keys(GRANTS),
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${publicUrl}/docs`,
  };

  return [
    defineRoute({
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      operationId: 'getOAuthMetadata',
      tag,
      auth: 'none',
      summary: 'Authorization server metadata (RFC 8414), so OAuth clients configure themselves',
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
      summary: 'The public keys app access tokens are signed with',
      responses: { 200: { description: 'A JSON Web Key Set' } },
      async handler(ctx) {
        // A new key is published a day before it signs (core/oauth/signing-key-rotation.ts): an hour's cache never misses one.
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.body = signer.publishedJwks();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/oauth/authorize',
      operationId: 'authorizeApp',
      tag,
      auth: 'optional',
      scope: NOT_FOR_APPS,
      summary: 'Ask the logged-in user to let an app act for them (consent screen), or answer a repeat grant at once',
      responses: {
        200: { description: 'The consent screen', contentType: 'text/html' },
        302: { description: 'Back to the app with a code or an error; a browser without a Bearer (Accept: text/html) to /login?return_to=…' },
        400: { description: 'Unknown client or unregistered redirect_uri (a page; never a redirect)', contentType: 'text/html' },
        401: { description: 'No Bearer, from a client that is not a browser' },
      },
      async handler(ctx) {
        // Who decides: the user of a Bearer (the spec's form), else the user logged in to Rally in this
        // browser; a browser with neither goes to /login and comes back here.
        const principal = ctx.state.principal;
        if (principal && principal.kind !== 'user')
          throw new RallyError('forbidden', 'Only a user logged in with their own access token can authorize apps.', { code: 'user_token_required' });
        const userId = principal?.userId ?? (await browserSessions.current(ctx))?.user.id;
        if (!userId) return sendToLogin(ctx);
        const checked = await checkAuthorizationRequest(db, ctx.query);
        if (checked.kind === 'show_error') return sendErrorPage(ctx, checked.message);
        if (checked.kind === 'redirect_error') {
          return redirect(ctx, redirectWith(checked.redirectUri, { error: checked.error, error_description: checked.description, state: checked.state, iss }));
        }
        const { request } = checked;
        if (await alreadyGranted(db, userId, request)) {
          const code = await approve(db, ticketOf(userId, request));
          if (code) return redirect(ctx, redirectWith(request.redirectUri, { code, state: request.state, iss }));
        }
        sendConsentPage(ctx, {
          appName: request.client.name,
          scopeDescriptions: request.scopes.map((scope) => OAUTH_SCOPE_CATALOG[scope as OAuthScope].description),
          ticket: await signConsentTicket(signer, userId, request, bindBrowser(ctx, publicUrl.startsWith('https:'))),
          redirectOrigin: new URL(request.redirectUri).origin,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/oauth/authorize',
      operationId: 'decideAppAuthorization',
      idempotent: false,
      tag,
      auth: 'none',
      rawBody: true,
      summary: "The consent form's answer: approve or deny, carried by the signed consent ticket, from the browser that was shown the screen",
      responses: {
        302: { description: 'Back to the app with a code, or error=access_denied' },
        400: { description: 'No valid consent ticket', contentType: 'text/html' },
      },
      async handler(ctx) {
        let form: Record<string, string>;
        try {
          form = await readParameters(ctx);
        } catch (error) {
          if (error instanceof BodyError) return sendErrorPage(ctx, error.message);
          throw error;
        }
        const ticket = form.consent_ticket ? await verifyConsentTicket(signer, form.consent_ticket) : undefined;
        if (!ticket) return sendErrorPage(ctx, 'The consent form has expired or was not issued by Rally. Start again from the app.');
        if (!isSameBrowser(ctx, ticket.bnd)) {
          return sendErrorPage(ctx, 'This consent form was shown in another browser, or this browser refused its cookie. Start again from the app.');
        }
        if (form.decision === 'deny') {
          return redirect(
            ctx,
            redirectWith(ticket.redirect_uri, { error: 'access_denied', error_description: 'The user denied the request.', state: ticket.state, iss }),
          );
        }
        if (form.decision !== 'approve') return sendErrorPage(ctx, 'Choose Approve or Deny.');
        const code = await approve(db, ticket);
        if (!code) return sendErrorPage(ctx, 'This consent form was already used, or the app changed. Start again from the app.');
        redirect(ctx, redirectWith(ticket.redirect_uri, { code, state: ticket.state, iss }));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/oauth/token',
      operationId: 'issueAppTokens',
      idempotent: false,
      tag,
      auth: 'none',
      rawBody: true,
      summary: 'Exchange a code, a refresh token or client credentials for tokens (form-encoded or JSON)',
      responses: {
        200: { description: '{access_token, token_type, expires_in, refresh_token, scope}' },
        400: { description: 'RFC 6749 error', schema: OAuthTokenError },
        401: { description: 'Client authentication failed, or token_expired', schema: OAuthTokenError },
      },
      async handler(ctx) {
        ctx.set('Pragma', 'no-cache');
        await answerClientRequest(ctx, async (params) => {
          const grant = GRANTS[params.grant_type as keyof typeof GRANTS];
          if (!params.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
          if (!Object.hasOwn(GRANTS, params.grant_type) || !grant)
            throw new OAuthError('unsupported_grant_type', `grant_type must be one of ${Object.keys(GRANTS).join(', ')}.`);
          ctx.body = await grant(deps, await authenticatedClient(db, ctx, params), params);
        });
      },
    }),
  ];
}
