// The browser session of a request, for Rally's HTML pages and forms only (the API under /v1 never reads the cookie: Bearer only there, so the API needs no
// CSRF defence). This module is the one door to it: `browserSessions.current(ctx)` for pages that change with a login, and `browserSessions.requireUser(ctx)`,
// which answers a redirect to /login?return_to=<this path> when nobody is logged in (the seam for other browser pages, such as OAuth consent).
import { createHmac } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { csrfTokenMatches, csrfTokenOf, findBrowserSession, type BrowserSession, type SessionLifetimes } from '../../core/browser-sessions/sessions.ts';
import { safeReturnPath } from '../../core/browser-sessions/return-to.ts';
import type { RallyContext } from './context.ts';
import { cookieName, cookiePolicy, readCookie, SESSION_COOKIE, setCookie, type CookiePolicy } from './cookies.ts';

export type CurrentSession = BrowserSession & { token: string; csrfToken: string };

export type BrowserSessions = {
  policy: CookiePolicy;
  lifetimes: SessionLifetimes;
  /** The live session of the request's cookie, or undefined (looked up once per request). */
  current(ctx: RallyContext): Promise<CurrentSession | undefined>;
  /** The logged-in session, or undefined after answering 303 to /login?return_to=<the request's path>. */
  requireUser(ctx: RallyContext): Promise<CurrentSession | undefined>;
  /** Whether a POST comes from a page of Rally's own origin, as the browser names it (Origin, Sec-Fetch-Site). */
  fromOwnPage(ctx: RallyContext): boolean;
  /** Whether a form POST comes from Rally's own page (fromOwnPage) and carries the session's CSRF token. */
  formAllowed(ctx: RallyContext, session: CurrentSession | undefined, submittedToken: unknown): boolean;
  sessionCookie(token: string): string;
  clearSessionCookie(): string;
};

/** The login page's address for coming back to `path` (validated there again). */
export const loginPath = (returnTo: string) => `/login?return_to=${encodeURIComponent(safeReturnPath(returnTo))}`;

export function createBrowserSessions(deps: {
  db: DatabasePool;
  publicUrl: string;
  nodeEnv: string;
  encryptionKey: string;
  lifetimes: SessionLifetimes;
}): BrowserSessions {
  const policy = cookiePolicy(deps.publicUrl, deps.nodeEnv);
  const origin = new URL(deps.publicUrl).origin;
  const csrfKey = createHmac('sha256', Buffer.from(deps.encryptionKey, 'hex')).update('rally browser csrf tokens').digest();
  const looked = new WeakMap<RallyContext, Promise<CurrentSession | undefined>>();

  async function lookUp(ctx: RallyContext): Promise<CurrentSession | undefined> {
    const token = readCookie(ctx.get('Cookie'), cookieName(policy, SESSION_COOKIE));
    if (!token) return undefined;
    const session = await findBrowserSession(deps.db, token, deps.lifetimes);
    return session && { ...session, token, csrfToken: csrfTokenOf(csrfKey, token) };
  }

  const current = (ctx: RallyContext) => {
    let found = looked.get(ctx);
    if (!found) looked.set(ctx, (found = lookUp(ctx)));
    return found;
  };

  // A browser names the page a form came from: Origin on every POST, and Sec-Fetch-Site. Either must
  // say "this site"; a request that says neither is no browser form. A page that sends no referrer
  // makes its form's Origin "null"; Sec-Fetch-Site then decides alone.
  function fromOwnPage(ctx: RallyContext): boolean {
    const from = ctx.get('Origin');
    const site = ctx.get('Sec-Fetch-Site');
    const sameOrigin = from && from !== 'null' ? from === origin : site === 'same-origin';
    return Boolean(sameOrigin) && (!site || site === 'same-origin');
  }

  return {
    policy,
    lifetimes: deps.lifetimes,
    current,
    async requireUser(ctx) {
      const session = await current(ctx);
      if (session) return session;
      ctx.status = 303;
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(loginPath(ctx.url));
      return undefined;
    },
    fromOwnPage,
    formAllowed(ctx, session, submittedToken) {
      return fromOwnPage(ctx) && session !== undefined && csrfTokenMatches(csrfKey, session.token, submittedToken);
    },
    sessionCookie: (token) => setCookie(policy, SESSION_COOKIE, token, deps.lifetimes.maxTtlMs / 1000),
    clearSessionCookie: () => setCookie(policy, SESSION_COOKIE, '', 0),
  };
}
