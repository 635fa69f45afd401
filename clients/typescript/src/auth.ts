// Credentials that outlive an access token. The client asks its token provider for a token before every attempt, and once more with `refresh: true` after a 401
// token_expired. loginSession and oauthSession are such providers: they keep a token pair, refresh it shortly before it expires (or when asked), one refresh at
// a time since each refresh token works once, and revoke it on request.
import { refreshTokens, revokeToken, type OAuthApp, type Tokens } from './oauth.ts';
import { isProblem, RallyProblem } from './problems.ts';

/** Returns the Bearer token for the next attempt; `refresh` is true after the API said it expired. */
export type TokenProvider = (context: { refresh: boolean }) => string | Promise<string>;

export type RefreshingTokens = TokenProvider & {
  /** The pair in use (after any refresh): store its refresh_token to resume later. */
  current(): Tokens;
  /** Revokes the refresh token (and with it the session or grant); the provider is unusable after. */
  revoke(): Promise<void>;
};

/** Refresh this long before the access token expires, so a request in flight does not carry a dead one. */
const EARLY_MS = 30_000;

type Exchange = { refresh(refreshToken: string): Promise<Tokens>; revoke(tokens: Tokens): Promise<void> };

function refreshing(initial: Tokens, exchange: Exchange, onTokens?: (tokens: Tokens) => void): RefreshingTokens {
  let tokens = initial;
  let expiresAt = initial.expires_in === undefined ? Infinity : Date.now() + initial.expires_in * 1000;
  let pending: Promise<Tokens> | undefined;
  const refresh = () =>
    (pending ??= (async () => {
      if (!tokens.refresh_token) throw new Error('These tokens have no refresh_token: log in or authorise again.');
      const next = await exchange.refresh(tokens.refresh_token);
      // An answer without a refresh token (allowed by RFC 6749) keeps the one we have.
      tokens = { ...next, refresh_token: next.refresh_token ?? tokens.refresh_token };
      expiresAt = next.expires_in === undefined ? Infinity : Date.now() + next.expires_in * 1000;
      onTokens?.(tokens);
      return tokens;
    })().finally(() => (pending = undefined)));
  const provider = async ({ refresh: forced }: { refresh: boolean }) => {
    if (pending) return (await pending).access_token;
    if (forced || Date.now() > expiresAt - EARLY_MS) return (await refresh()).access_token;
    return tokens.access_token;
  };
  return Object.assign(provider, { current: () => tokens, revoke: () => exchange.revoke(tokens) });
}

type SessionOptions = {
  baseUrl: string;
  tokens: Tokens;
  /** Called with every new pair, e.g. to store the refresh token. */
  onTokens?: (tokens: Tokens) => void;
  fetch?: typeof fetch;
};

async function json(response: Response): Promise<unknown> {
  return response.status === 204 ? undefined : response.json().catch(() => undefined);
}

/** A login's tokens (POST /v1/auth/login), refreshed through POST /v1/auth/refresh, revoked by POST /v1/auth/logout. */
export function loginSession(options: SessionOptions): RefreshingTokens {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const post = async (path: string, body: object) => {
    const response = await doFetch(`${options.baseUrl.replace(/\/$/, '')}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await json(response);
    if (response.ok) return answer as { data: Tokens } | undefined;
    if (isProblem(answer)) throw new RallyProblem(answer, response);
    throw new Error(`Rally answered ${response.status} to ${path}`);
  };
  return refreshing(
    options.tokens,
    {
      refresh: async (refreshToken) => (await post('/v1/auth/refresh', { refresh_token: refreshToken }))!.data,
      revoke: async (tokens) => void (tokens.refresh_token && (await post('/v1/auth/logout', { refresh_token: tokens.refresh_token }))),
    },
    options.onTokens,
  );
}

/** An OAuth app's tokens (POST /oauth/token, e.g. from exchangeCode), refreshed with the refresh_token grant, revoked at POST /oauth/revoke. */
export function oauthSession(options: SessionOptions & OAuthApp): RefreshingTokens {
  return refreshing(
    options.tokens,
    {
      refresh: (refreshToken) => refreshTokens(options, refreshToken),
      revoke: (tokens) =>
        tokens.refresh_token ? revokeToken(options, tokens.refresh_token, 'refresh_token') : revokeToken(options, tokens.access_token, 'access_token'),
    },
    options.onTokens,
  );
}
