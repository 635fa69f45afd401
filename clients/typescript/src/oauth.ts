// The OAuth 2.0 authorization code flow with PKCE (RFC 7636, S256) against Rally's /oauth endpoints:
// an authorization URL with a fresh verifier and state, the redirect back checked, the code exchanged,
// tokens refreshed and revoked. Web Crypto and fetch only, so it runs wherever the SDK runs.

/** An app registered on a Rally installation; a public app (a phone or browser app) has no secret. */
export type OAuthApp = {
  baseUrl: string;
  clientId: string;
  /** Confidential apps only (sent as client_secret_post). */
  clientSecret?: string;
  fetch?: typeof fetch;
};

/** What login (`data` of POST /v1/auth/login) and POST /oauth/token answer alike. */
export type Tokens = { access_token: string; refresh_token?: string; expires_in?: number };

/** What POST /oauth/token answers (RFC 6749 section 5.1). */
export type OAuthTokens = Tokens & { token_type: string; scope?: string; id_token?: string };

/** Keep it (e.g. in the user's session) from the redirect to Rally until the redirect back. */
export type AuthorizationRequest = { url: string; redirectUri: string; state: string; codeVerifier: string };

/** An OAuth error answer (RFC 6749 sections 4.1.2.1 and 5.2), or a redirect back that is not this request's. */
export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly status: number;
  readonly error: string;

  constructor(status: number, error: string, description?: string) {
    super(`${status} ${error}${description ? `: ${description}` : ''}`);
    this.status = status;
    this.error = error;
  }
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomToken = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
const endpoint = (app: OAuthApp, path: string) => `${app.baseUrl.replace(/\/$/, '')}${path}`;

/** Equal strings, compared in constant time for their length (the state is the app's CSRF secret). */
function sameString(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index % Math.max(b.length, 1));
  return difference === 0;
}

/** The address to send the user to (GET /oauth/authorize), with an S256 code challenge and a random state. */
export async function authorizationRequest(app: OAuthApp, options: { redirectUri: string; scope: string | string[] }): Promise<AuthorizationRequest> {
  const codeVerifier = randomToken();
  const state = randomToken();
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier))));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: options.redirectUri,
    scope: typeof options.scope === 'string' ? options.scope : options.scope.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return { url: `${endpoint(app, '/oauth/authorize')}?${query}`, redirectUri: options.redirectUri, state, codeVerifier };
}

/** The code in the redirect back to the app; throws OAuthError when the user refused or the state is not this request's. */
export function codeFromCallback(callbackUrl: string | URL, request: AuthorizationRequest): string {
  const query = new URL(callbackUrl).searchParams;
  if (!sameString(query.get('state') ?? '', request.state))
    throw new OAuthError(400, 'state_mismatch', 'the redirect back does not carry this request’s state');
  const error = query.get('error');
  if (error) throw new OAuthError(400, error, query.get('error_description') ?? undefined);
  const code = query.get('code');
  if (!code) throw new OAuthError(400, 'invalid_response', 'the redirect back carries no code');
  return code;
}

/** POSTs a form to /oauth/token or /oauth/revoke with the app's credentials; the JSON answer, or OAuthError. */
async function post(app: OAuthApp, path: string, fields: Record<string, string>): Promise<unknown> {
  const credentials = { client_id: app.clientId, ...(app.clientSecret ? { client_secret: app.clientSecret } : {}) };
  const response = await (app.fetch ?? globalThis.fetch.bind(globalThis))(endpoint(app, path), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({ ...fields, ...credentials }),
  });
  const answer = (await response.json().catch(() => undefined)) as { error?: string; error_description?: string } | undefined;
  if (!response.ok) throw new OAuthError(response.status, answer?.error ?? 'invalid_response', answer?.error_description);
  return answer;
}

/** Exchanges the code of the redirect back (see codeFromCallback) for tokens, proving the PKCE verifier. */
export async function exchangeCode(app: OAuthApp, request: AuthorizationRequest, code: string): Promise<OAuthTokens> {
  const fields = { grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.codeVerifier };
  return (await post(app, '/oauth/token', fields)) as OAuthTokens;
}

/** A new pair for a refresh token (each works once: store the new refresh_token). */
export async function refreshTokens(app: OAuthApp, refreshToken: string): Promise<OAuthTokens> {
  return (await post(app, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken })) as OAuthTokens;
}

/** Revokes a token (RFC 7009); a refresh token takes the grant's access tokens with it. */
export async function revokeToken(app: OAuthApp, token: string, hint: 'access_token' | 'refresh_token' = 'refresh_token'): Promise<void> {
  await post(app, '/oauth/revoke', { token, token_type_hint: hint });
}
