// OAuth 2.0 for third-party apps: /oauth/authorize (consent), /oauth/token, the RFC 8414 metadata
// and the key set app tokens are signed with. Protocol answers follow RFC 6749 rather than Rally's
// envelopes: HTML for the user at /oauth/authorize, {error, error_description} at /oauth/token.
import type { DatabasePool } from 'slonik';
import type { RallyContext } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';
import { defineRoute, type AnyRouteSpec } from '../http/route.ts';
import { OAUTH_SCOPE_PERMISSIONS } from '../../core/auth/scopes.ts';
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
import { authenticateClient, clientCredentials, exchangeCode, refresh, type GrantDependencies } from '../../core/oauth/grants.ts';
import { OAuthError } from '../../core/oauth/token-errors.ts';
import { OAuthTokenError } from './schemas.ts';
import { BodyError, readParameters } from './request-body.ts';
import { sendConsentPage, sendErrorPage } from './pages.ts';

const tag = 'OAuth 2.0';
const GRANTS = { authorization_code: exchangeCode, refresh_token: refresh, client_credentials: clientCredentials } as const;

function redirect(ctx: RallyContext, location: string) {
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(location);
}

/** client_secret_basic (RFC 6749 2.3.1: each part form-encoded) or client_secret_post; never both. */
function clientCredentialsOf(ctx: RallyContext, params: Record<string, string>) {
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

export function createOAuthRoutes(deps: GrantDependencies & { publicUrl: string }): AnyRouteSpec[] {
  const { db, signer, publicUrl } = deps;
  const metadata = {
    issuer: signer.issuer,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    jwks_uri: `${publicUrl}/oauth/jwks`,
    scopes_supported: OAUTH_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: Object.keys(GRANTS),
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
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
        ctx.body = signer.publicJwks;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/oauth/authorize',
      operationId: 'authorizeApp',
      tag,
      auth: 'required',
      summary: 'Ask the logged-in user to let an app act for them (consent screen), or answer a repeat grant at once',
      responses: {
        200: { description: 'The consent screen', contentType: 'text/html' },
        302: { description: 'Back to the app with a code or an error' },
        400: { description: 'Unknown client or unregistered redirect_uri (a page; never a redirect)', contentType: 'text/html' },
      },
      async handler(ctx) {
        const principal = ctx.state.principal!;
        if (principal.kind !== 'user')
          throw new RallyError('forbidden', 'Only a user logged in with their own access token can authorize apps.', { code: 'user_token_required' });
        const checked = await checkAuthorizationRequest(db, ctx.query);
        if (checked.kind === 'show_error') return sendErrorPage(ctx, checked.message);
        if (checked.kind === 'redirect_error') {
          return redirect(ctx, redirectWith(checked.redirectUri, { error: checked.error, error_description: checked.description, state: checked.state }));
        }
        const { request } = checked;
        if (await alreadyGranted(db, principal.userId, request)) {
          const code = await approve(db, ticketOf(principal.userId, request));
          if (code) return redirect(ctx, redirectWith(request.redirectUri, { code, state: request.state }));
        }
        sendConsentPage(ctx, {
          appName: request.client.name,
          scopeDescriptions: request.scopes.map((scope) => OAUTH_SCOPE_PERMISSIONS[scope as OAuthScope].description),
          ticket: await signConsentTicket(signer, principal.userId, request),
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
      summary: "The consent form's answer: approve or deny, carried by the signed consent ticket (no cookie needed)",
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
        if (form.decision === 'deny') {
          return redirect(
            ctx,
            redirectWith(ticket.redirect_uri, { error: 'access_denied', error_description: 'The user denied the request.', state: ticket.state }),
          );
        }
        if (form.decision !== 'approve') return sendErrorPage(ctx, 'Choose Approve or Deny.');
        const code = await approve(db, ticket);
        if (!code) return sendErrorPage(ctx, 'This consent form was already used, or the app changed. Start again from the app.');
        redirect(ctx, redirectWith(ticket.redirect_uri, { code, state: ticket.state }));
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
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Pragma', 'no-cache');
        try {
          const params = await readParameters(ctx).catch((error: unknown) => {
            throw error instanceof BodyError ? new OAuthError('invalid_request', error.message) : error;
          });
          const grant = GRANTS[params.grant_type as keyof typeof GRANTS];
          if (!params.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
          if (!Object.hasOwn(GRANTS, params.grant_type) || !grant)
            throw new OAuthError('unsupported_grant_type', `grant_type must be one of ${Object.keys(GRANTS).join(', ')}.`);
          const client = await authenticateClient(db, clientCredentialsOf(ctx, params));
          ctx.body = await grant(deps, client, params);
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          ctx.status = error.status;
          if (error.error === 'invalid_client' && /^Basic/i.test(ctx.get('Authorization'))) ctx.set('WWW-Authenticate', 'Basic realm="rally"');
          ctx.body = { error: error.error, error_description: error.description };
        }
      },
    }),
  ];
}
