// Logging in and out in a browser: GET /login and /signup go to the identity provider (authorization code + PKCE, browser-login.ts), GET /auth/callback sets
// the session cookie, POST /logout ends this session and /logout/everywhere every session of the user (both also with the OAuth server); GET /account shows who
// is logged in. Failures are HTML pages: a person is reading.
import { Type } from '@sinclair/typebox';
import type { DatabasePool } from 'slonik';
import { finishBrowserLogin, startBrowserLogin, type BrowserLoginDependencies } from '../../core/browser-sessions/browser-login.ts';
import { LOGIN_ATTEMPT_TTL_MS, loginAttemptBox } from '../../core/browser-sessions/login-attempts.ts';
import { safeReturnPath } from '../../core/browser-sessions/return-to.ts';
import { endBrowserSession, endBrowserSessionsOfUser } from '../../core/browser-sessions/sessions.ts';
import type { IdentityClient } from '../../core/auth/identity-client.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import type { RallyContext } from '../../api/http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { cookieName, LOGIN_COOKIE, readCookie, SESSION_COOKIE, setCookie } from '../../api/http/cookies.ts';
import { accountPage, seeOther, sendBrowserPage, sendRefusal } from '../browser-pages.ts';
import type { BrowserSessions } from '../../api/http/browser-session.ts';
import { readSessionForm } from '../session-form.ts';

const ReturnQuery = Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 2000, description: 'A path on this site to come back to' })) });
// The provider's answer; anything else it adds is ignored.
const CallbackQuery = Type.Object({}, { additionalProperties: Type.String({ maxLength: 4000 }) });

const tag = 'Browser sessions';
const htmlResponses = (extra: Record<number, string>) =>
  Object.fromEntries(Object.entries(extra).map(([status, description]) => [status, { description, contentType: 'text/html' }]));
const formResponses = htmlResponses({
  303: 'Done: on to return_to',
  400: 'HTML page: a malformed form',
  403: 'HTML page: not from a Rally page, or without the session’s CSRF token',
  413: 'HTML page: form too large',
  415: 'HTML page: not a form',
});

export type BrowserLoginRouteDependencies = {
  db: DatabasePool;
  identity: IdentityClient;
  publicUrl: string;
  encryptionKey: string;
  sessions: BrowserSessions;
  /** Ends this browser's session with the OAuth server and clears its cookies (api/oauth/server/cookies.ts). */
  endAppSession(ctx: RallyContext): Promise<void>;
};

export function createBrowserLoginRoutes(deps: BrowserLoginRouteDependencies): AnyRouteSpec[] {
  const { db, publicUrl, sessions } = deps;
  const login: BrowserLoginDependencies = {
    db,
    identity: deps.identity,
    redirectUri: `${publicUrl}/auth/callback`,
    lifetimes: sessions.lifetimes,
    attempts: loginAttemptBox(deps.encryptionKey),
  };

  async function goToProvider(ctx: RallyContext, returnTo: string | undefined, signup: boolean) {
    ctx.set('Cache-Control', 'no-store');
    // Logged in already: straight back, unless the address was unconfirmed then (a new login brings the provider's word that it is now).
    const session = await sessions.current(ctx);
    if (!signup && session?.user.emailVerified) return ctx.redirect(safeReturnPath(returnTo));
    const started = await startBrowserLogin(login, { returnTo, signup });
    ctx.append('Set-Cookie', setCookie(sessions.policy, LOGIN_COOKIE, started.binding, LOGIN_ATTEMPT_TTL_MS / 1000));
    ctx.redirect(started.url.href);
  }

  const logout = (everywhere: boolean) =>
    defineRoute({
      method: 'post',
      path: everywhere ? '/logout/everywhere' : '/logout',
      operationId: everywhere ? 'logOutEverywhere' : 'logOut',
      tag,
      auth: 'none',
      rawBody: true,
      idempotent: false,
      summary: everywhere ? 'Ends every browser session of the logged-in user (HTML form)' : 'Ends this browser session (HTML form)',
      responses: formResponses,
      async handler(ctx) {
        const submitted = await readSessionForm(ctx, { sessions, publicUrl });
        if (!submitted) return;
        if (everywhere) await endBrowserSessionsOfUser(db, submitted.session.user.id);
        else await endBrowserSession(db, submitted.session.token);
        ctx.append('Set-Cookie', sessions.clearSessionCookie());
        await deps.endAppSession(ctx);
        seeOther(ctx, safeReturnPath(submitted.form.return_to));
      },
    });

  return [
    ...(['login', 'signup'] as const).map((screen) =>
      defineRoute({
        method: 'get',
        path: `/${screen}`,
        operationId: screen === 'login' ? 'startBrowserLogin' : 'startBrowserSignup',
        tag,
        auth: 'none',
        summary: `Sends the browser to the identity provider's ${screen === 'login' ? 'login' : 'sign-up'} page; comes back to return_to`,
        query: ReturnQuery,
        responses: {
          ...htmlResponses({ 302: 'To the identity provider (or straight to return_to when already logged in)' }),
          400: { description: 'return_to is longer than 2000 characters' },
        },
        handler: (ctx, { query }) => goToProvider(ctx, query.return_to, screen === 'signup'),
      }),
    ),
    defineRoute({
      method: 'get',
      path: '/auth/callback',
      operationId: 'finishBrowserLogin',
      tag,
      auth: 'none',
      summary: "The identity provider's redirect back: checks state, nonce and PKCE, starts the session, goes on to return_to",
      query: CallbackQuery,
      responses: htmlResponses({ 303: 'Logged in: on to return_to', 400: 'HTML page: the login failed or expired', 403: 'HTML page: suspended account' }),
      async handler(ctx) {
        const loginCookie = cookieName(sessions.policy, LOGIN_COOKIE);
        ctx.append('Set-Cookie', setCookie(sessions.policy, LOGIN_COOKIE, '', 0));
        try {
          const done = await finishBrowserLogin(login, readCookie(ctx.get('Cookie'), loginCookie), new URL(ctx.url, publicUrl));
          // The session this browser had before (another person's, say) ends: one browser, one login.
          const previous = readCookie(ctx.get('Cookie'), cookieName(sessions.policy, SESSION_COOKIE));
          if (previous) await endBrowserSession(db, previous);
          ctx.append('Set-Cookie', sessions.sessionCookie(done.sessionToken));
          // Checked again where the redirect is sent, whatever the attempt carried.
          seeOther(ctx, safeReturnPath(done.returnTo));
        } catch (error) {
          if (!(error instanceof DomainError) || (error.kind !== 'unauthenticated' && error.kind !== 'forbidden')) throw error;
          sendRefusal(ctx, publicUrl, error.kind === 'forbidden' ? 403 : 400, error.message, '/login');
        }
      },
    }),
    logout(false),
    logout(true),
    defineRoute({
      method: 'get',
      path: '/account',
      operationId: 'getBrowserAccount',
      tag,
      auth: 'none',
      summary: 'Who is logged in in this browser, with the logout forms (HTML)',
      responses: htmlResponses({ 200: 'HTML page' }),
      async handler(ctx) {
        const session = await sessions.current(ctx);
        sendBrowserPage(ctx, publicUrl, 200, 'Your account', accountPage(session?.user, session?.csrfToken));
      },
    }),
  ];
}
