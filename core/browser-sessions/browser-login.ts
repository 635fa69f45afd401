// Logging a browser in through the identity provider: OpenID Connect authorization code with PKCE (S256), state and nonce. startBrowserLogin seals the attempt
// for the browser's cookie; finishBrowserLogin checks the callback against it, trades the code, links the account to a Rally user (as the API's login does) and
// starts a new session: a fresh cookie at every login, so a session id planted before login is never the one that gets logged in.
import * as oidc from 'openid-client';
import type { DatabasePool } from 'slonik';
import type { SecretBox } from '../webhooks/signing-secrets.ts';
import { Forbidden, Unauthenticated } from '../errors/domain-error.ts';
import type { IdentityClient } from '../auth/identity-client.ts';
import { upsertUserFromClaims } from '../users/queries.ts';
import { openLoginAttempt, sealLoginAttempt } from './login-attempts.ts';
import { safeReturnPath } from './return-to.ts';
import { startBrowserSession, type SessionLifetimes } from './sessions.ts';

export type BrowserLoginDependencies = {
  db: DatabasePool;
  identity: IdentityClient;
  redirectUri: string;
  lifetimes: SessionLifetimes;
  /** Seals the attempt into the login cookie (login-attempts.ts loginAttemptBox). */
  attempts: SecretBox;
};

/** Returns the login cookie's value and where to send the browser. `signup` asks the provider for its sign-up screen. */
export async function startBrowserLogin(
  deps: BrowserLoginDependencies,
  request: { returnTo: unknown; signup: boolean },
): Promise<{ binding: string; url: URL }> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const attempt = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier, returnTo: safeReturnPath(request.returnTo) };
  const url = await deps.identity.authorizationUrl({
    redirectUri: deps.redirectUri,
    state: attempt.state,
    nonce: attempt.nonce,
    codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    // The password is asked every time: Rally's logout cannot end the provider's own session.
    extra: { prompt: 'login', ...(request.signup ? { rally_screen: 'signup' } : {}) },
  });
  return { binding: sealLoginAttempt(deps.attempts, attempt), url };
}

/** The new session's cookie value and the path to go back to; throws Unauthenticated for a callback that does not belong to this browser's attempt. */
export async function finishBrowserLogin(
  deps: BrowserLoginDependencies,
  binding: string | undefined,
  callbackUrl: URL,
): Promise<{ sessionToken: string; returnTo: string }> {
  const attempt = openLoginAttempt(deps.attempts, binding);
  if (!attempt) throw new Unauthenticated('This login has expired or was started in another browser; please log in again.', { code: 'login_expired' });
  const tokens = await deps.identity.exchangeCode(callbackUrl, attempt);
  const claims = tokens.claims;
  if (!claims?.email) throw new Unauthenticated('The identity provider did not say who logged in; please log in again.', { code: 'login_failed' });
  const user = await upsertUserFromClaims(deps.db, {
    issuer: await deps.identity.issuer(),
    subject: claims.sub,
    email: claims.email,
    displayName: claims.name ?? claims.email.split('@')[0] ?? 'user',
    emailVerified: claims.email_verified ?? false,
  });
  if (user.suspended_at) throw new Forbidden('This account is suspended.', { code: 'account_suspended' });
  return { sessionToken: await startBrowserSession(deps.db, user.id, deps.lifetimes), returnTo: attempt.returnTo };
}
