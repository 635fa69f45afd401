// The embedded provider's browser screens for Rally's login (authorization code flow): the login form, the sign-up form and the email-verification link.
// oidc-provider hands the browser to /interaction/{uid}; the interaction's own cookie binds the forms to that browser, and a form POST must also come from this
// origin (Origin / Sec-Fetch-Site). Rally is the only client and a first-party one, so no consent screen is shown (create-provider.ts grants what it asks).
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import type { LoginThrottle } from '../core/auth/login-throttle.ts';
import { DomainError } from '../core/errors/domain-error.ts';
import { FormBodyError, readFormBody } from '../platform/form-body.ts';
import type { Mailer } from '../platform/mailer.ts';
import { createIdentityAccount, findIdentityAccount, IdentityAccountError, verifyIdentityPassword } from './accounts.ts';
import { deviceCookieHeader, readDeviceCookie } from './device-cookie.ts';
import { sendVerificationEmail, verifyEmail } from './email-verification.ts';
import { pageHeaders } from './page-headers.ts';
import { checkEmailPage, loginPage, messagePage, signupPage, type FieldErrors } from './interaction-pages.ts';

export type InteractionDependencies = { db: DatabasePool; mailer: Mailer; throttle: LoginThrottle; issuer: string; rallyUrl: string };

type Ctx = Parameters<Middleware>[0];

const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]{1,64})(\/login|\/signup)?$/;

function send(ctx: Ctx, status: number, body: string, rallyOrigin: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set(pageHeaders(rallyOrigin));
  ctx.body = body;
}

/** A form POST from a page of this provider: the browser says so by Origin, or by Sec-Fetch-Site when it sends no Origin. */
function fromOwnPage(ctx: Ctx, issuer: string): boolean {
  const origin = ctx.get('Origin');
  if (origin && origin !== 'null') return origin === new URL(issuer).origin;
  const site = ctx.get('Sec-Fetch-Site');
  return site === 'same-origin';
}

export function createInteractionRoutes(provider: Provider, deps: InteractionDependencies): Middleware {
  const rallyOrigin = new URL(deps.rallyUrl).origin;
  const loginUrl = `${deps.rallyUrl}/login`;

  async function login(ctx: Ctx, uid: string, form: Record<string, string>) {
    const email = (form.email ?? '').trim();
    const password = form.password ?? '';
    const errors: FieldErrors = {};
    if (!email) errors.email = 'Enter your email address.';
    if (!password) errors.password = 'Enter your password.';
    if (errors.email || errors.password) return send(ctx, 422, loginPage(uid, { email }, errors), rallyOrigin);
    const device = readDeviceCookie(ctx.get('Cookie'), deps.issuer);
    try {
      await deps.throttle.beforeAttempt(email, ctx.ip, device);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.retryAfterSeconds) ctx.set('Retry-After', String(error.retryAfterSeconds));
      return send(ctx, 429, loginPage(uid, { email }, { form: error.message }), rallyOrigin);
    }
    const accountId = await verifyIdentityPassword(deps.db, email, password);
    if (!accountId) return send(ctx, 401, loginPage(uid, { email }, { form: 'The email address or password is wrong.' }), rallyOrigin);
    // This browser is known for the account from now on: a lock from others' guessing does not hold it.
    ctx.append('Set-Cookie', deviceCookieHeader(await deps.throttle.recordSuccess(email, ctx.ip, device), deps.issuer));
    // An address not confirmed yet gets a fresh link at each login (at most one a minute), so a lost or expired one is no dead end.
    const account = await findIdentityAccount(deps.db, accountId);
    if (account && !account.emailVerified)
      await sendVerificationEmail(deps, { id: account.id, email: account.email, displayName: account.displayName ?? account.email });
    const to = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId } }, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
  }

  async function signup(ctx: Ctx, uid: string, form: Record<string, string>) {
    const values = { email: (form.email ?? '').trim(), name: (form.name ?? '').trim() };
    const password = form.password ?? '';
    const errors: FieldErrors = {};
    if (!values.name || values.name.length > 100) errors.name = 'Enter your name (at most 100 characters).';
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email) || values.email.length > 320) errors.email = 'Enter an email address like name@example.org.';
    if (password.length < 8 || password.length > 1024) errors.password = 'Choose a password of at least 8 characters.';
    if (Object.keys(errors).length > 0) return send(ctx, 422, signupPage(uid, values, errors), rallyOrigin);
    // Sign-ups count like failed logins (never taken back): one address cannot make accounts without end.
    const refused = await deps.throttle.beforeAttempt(values.email, ctx.ip).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof DomainError) return error.message;
        throw error;
      },
    );
    if (refused) return send(ctx, 429, signupPage(uid, values, { form: refused }), rallyOrigin);
    try {
      const id = await createIdentityAccount(deps.db, { email: values.email, password, displayName: values.name });
      await sendVerificationEmail(deps, { id, email: values.email, displayName: values.name });
    } catch (error) {
      // An address that already has an account gets the same page as a new one: the form does not tell who has an account.
      if (!(error instanceof IdentityAccountError)) throw error;
    }
    send(ctx, 200, checkEmailPage(values.email, loginUrl), rallyOrigin);
  }

  return async function interactions(ctx, next) {
    if (ctx.path === '/verify-email' && ctx.method === 'GET') {
      const verified = await verifyEmail(deps.db, String(ctx.query.token ?? ''));
      return verified
        ? send(
            ctx,
            200,
            messagePage('Email address confirmed', 'Thank you: your address is confirmed and you can sign petitions.', {
              href: loginUrl,
              text: 'Log in to Rally',
            }),
            rallyOrigin,
          )
        : send(
            ctx,
            400,
            messagePage(
              'This link does not work',
              'It was already used, has expired or is incomplete. Log in: if your address is not confirmed yet, we send you a new link.',
              {
                href: loginUrl,
                text: 'Log in to Rally',
              },
            ),
            rallyOrigin,
          );
    }
    const match = INTERACTION_PATH.exec(ctx.path);
    if (!match) return next();
    const [, uid, action] = match as unknown as [string, string, string | undefined];
    let details;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch {
      return send(
        ctx,
        400,
        messagePage('This login has expired', 'Start again from the page you were on.', { href: loginUrl, text: 'Log in to Rally' }),
        rallyOrigin,
      );
    }
    if (details.uid !== uid) return send(ctx, 400, messagePage('This login has expired', 'Start again from the page you were on.'), rallyOrigin);
    if (ctx.method === 'GET' && !action) {
      const screen = ctx.query.screen ?? details.params.rally_screen;
      return send(ctx, 200, screen === 'signup' ? signupPage(uid, {}) : loginPage(uid, {}), rallyOrigin);
    }
    if (ctx.method !== 'POST' || !action) return next();
    if (!fromOwnPage(ctx, deps.issuer)) return send(ctx, 403, messagePage('Request refused', 'This form can only be sent from its own page.'), rallyOrigin);
    let form: Record<string, string>;
    try {
      form = await readFormBody(ctx.req);
    } catch (error) {
      if (error instanceof FormBodyError) return send(ctx, error.status, messagePage('Request refused', error.message), rallyOrigin);
      throw error;
    }
    return action === '/login' ? login(ctx, uid, form) : signup(ctx, uid, form);
  };
}
