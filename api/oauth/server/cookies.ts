// The authorization server's cookies (its session, the consent screen's interaction, the resume step's binding) follow the rules of Rally's own
// (api/http/cookies.ts): HttpOnly, SameSite=Lax, host-only, Path=/, and Secure with the __Host- prefix whenever PUBLIC_URL is https, decided by the public URL
// and not by the request, so behind a TLS-terminating proxy without RALLY_TRUST_PROXY they keep both.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Configuration, KoaContextWithOIDC, Provider } from 'oidc-provider';
import { cookieName, setCookie, type CookiePolicy } from '../../http/cookies.ts';

// Named apart from Rally's own (rally_session) and from the identity provider's.
const NAMES = { session: 'rally_oauth_session', interaction: 'rally_oauth_interaction', resume: 'rally_oauth_resume' } as const;

/** The provider's `cookies` configuration under `policy`; `keys` sign them. */
export function providerCookies(policy: CookiePolicy, keys: string[]): NonNullable<Configuration['cookies']> {
  const options = { httpOnly: true, sameSite: 'lax', secure: policy.secure, path: '/' } as const;
  return {
    keys,
    names: { session: cookieName(policy, NAMES.session), interaction: cookieName(policy, NAMES.interaction), resume: cookieName(policy, NAMES.resume) },
    long: options,
    short: options,
  };
}

/**
 * Makes the provider write its cookies as configured. The provider sets Secure only on a request it
 * sees as https, and scopes the interaction and resume cookies to their own paths, which __Host-
 * forbids: every cookie goes on Path=/ instead (so a browser has one authorization in progress at a
 * time, its latest), and with a Secure policy every request counts as secure for its cookies.
 */
export function writeCookiesByPolicy(provider: Provider, policy: CookiePolicy): void {
  if (policy.secure) Object.defineProperty(provider.request, 'secure', { get: () => true });
  provider.use(async function cookiesOnHostRoot(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
    const cookies = ctx.cookies;
    const set = cookies.set.bind(cookies);
    cookies.set = (name, value, options) => set(name, value, { ...options, path: '/' });
    await next();
  });
}

/**
 * Ends this browser's session with the provider (POST /logout): the stored session goes, which also
 * voids a consent screen still open on it, and the Set-Cookie values that clear every cookie of it.
 */
export async function endProviderSession(provider: Provider, policy: CookiePolicy, http: { req: IncomingMessage; res: ServerResponse }): Promise<string[]> {
  // Read as the provider reads it: a cookie whose signature does not match is nobody's session.
  const id = provider.createContext(http.req, http.res).cookies.get(provider.cookieName('session'), { signed: true });
  const session = id ? await provider.Session.find(id) : undefined;
  await session?.destroy();
  return Object.values(NAMES).flatMap((name) => [setCookie(policy, name, '', 0), setCookie(policy, `${name}.sig`, '', 0)]);
}
