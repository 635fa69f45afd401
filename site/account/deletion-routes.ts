// Deleting one's account from the browser (issue 46): GET /account-deletion asks for confirmation, POST /account-deletion (CSRF-checked like every form of a
// logged-in page) starts the deletion the API's DELETE /v1/users/me starts, then GET /goodbye says so. A session whose login is older than
// RALLY_SENSITIVE_ACTION_MAX_AGE is asked to log in again first.
import type { DatabasePool } from 'slonik';
import { isFreshBrowserLogin } from '../../core/auth/fresh-login.ts';
import { DomainError } from '../../core/errors/domain-error.ts';
import { requestAccountDeletion, type AccountDeletionWorkflows } from '../../core/account-deletion/request.ts';
import type { RallyContext } from '../../api/http/context.ts';
import { defineRoute, type AnyRouteSpec } from '../../api/http/route.ts';
import { html } from '../../platform/html.ts';
import { csrfField, seeOther, sendBrowserPage, sendRefusal } from '../browser-pages.ts';
import { loginPath, type BrowserSessions, type CurrentSession } from '../../api/http/browser-session.ts';
import { readSessionForm } from '../session-form.ts';

const tag = 'Browser sessions';
const PATH = '/account-deletion';
const page = (description: string) => ({ description, contentType: 'text/html' });

type AccountDeletionDependencies = {
  db: DatabasePool;
  publicUrl: string;
  sessions: BrowserSessions;
  workflows: AccountDeletionWorkflows;
  sensitiveActionMaxAgeMs: number;
  accessTokenTtlMs: number;
};

const fresh = (deps: AccountDeletionDependencies, session: CurrentSession) => isFreshBrowserLogin(deps.db, session.id, deps.sensitiveActionMaxAgeMs);

/**
 * Logging in again: out of this session, back to this page, then a link through the provider (a form's
 * redirects may not leave the site: the pages' CSP has form-action 'self').
 */
const reauthenticate = (ctx: RallyContext, publicUrl: string, session: CurrentSession) =>
  sendBrowserPage(
    ctx,
    publicUrl,
    200,
    'Log in again',
    html`<h1>Log in again to delete your account</h1><p>Deleting your account needs a recent login. Log in again, then confirm.</p>
<form method="post" action="/logout">${csrfField(session.csrfToken)}<input type="hidden" name="return_to" value="${PATH}">
<button type="submit" class="btn">Log in again</button></form><p><a href="/account">Keep my account</a></p>`,
  );

function confirmationRoute(deps: AccountDeletionDependencies): AnyRouteSpec {
  const { publicUrl, sessions } = deps;
  return defineRoute({
    method: 'get',
    path: PATH,
    operationId: 'confirmBrowserAccountDeletion',
    tag,
    auth: 'none',
    summary: 'Asks the logged-in person to confirm deleting their account (HTML)',
    responses: { 200: page('HTML page: the confirmation, or the way to log in (again)') },
    async handler(ctx) {
      const session = await sessions.current(ctx);
      if (!session) {
        return sendBrowserPage(
          ctx,
          publicUrl,
          200,
          'Log in',
          html`<h1>Log in to delete your account</h1><p><a class="btn" href="${loginPath(PATH)}">Log in</a> <a href="/account">Keep my account</a></p>`,
        );
      }
      if (!(await fresh(deps, session))) return reauthenticate(ctx, publicUrl, session);
      sendBrowserPage(
        ctx,
        publicUrl,
        200,
        'Delete your account',
        html`<h1>Delete your account?</h1>
<p>This cannot be undone. You are logged out everywhere at once. Your signatures stay counted but no longer carry your name,
your comments become “[deleted]”, and your petitions stay, shown as by “a former member”.</p>
<form method="post" action="${PATH}">${csrfField(session.csrfToken)}
<label><input type="checkbox" name="close_petitions" value="yes"> Close my active petitions instead of leaving them published</label>
<label><input type="checkbox" name="confirm" value="yes" required> I understand: delete my account</label>
<button type="submit" class="btn">Delete my account</button></form>
<p><a href="/account">Keep my account</a></p>`,
      );
    },
  });
}

function deletionRoute(deps: AccountDeletionDependencies): AnyRouteSpec {
  const { publicUrl, sessions } = deps;
  return defineRoute({
    method: 'post',
    path: PATH,
    operationId: 'deleteBrowserAccount',
    tag,
    auth: 'none',
    rawBody: true,
    idempotent: false,
    summary: 'Deletes the logged-in person’s account, as DELETE /v1/users/me does (HTML form, CSRF-checked)',
    responses: {
      200: page('HTML page: the login is too old, log in again first'),
      303: page('Deleting: on to /goodbye'),
      400: page('HTML page: not confirmed'),
      403: page('HTML page: not from a Rally page, or without the session’s CSRF token'),
      409: page('HTML page: the only owner of an organization, or the last administrator'),
      413: page('HTML page: form too large'),
      415: page('HTML page: not a form'),
    },
    async handler(ctx) {
      const submitted = await readSessionForm(ctx, { sessions, publicUrl, back: PATH, loginReturnTo: PATH });
      if (!submitted) return;
      const { form, session } = submitted;
      if (form.confirm !== 'yes') return sendRefusal(ctx, publicUrl, 400, 'Tick the box to confirm that you want your account deleted.', PATH);
      if (!(await fresh(deps, session))) return reauthenticate(ctx, publicUrl, session);
      try {
        await requestAccountDeletion(deps, {
          userId: session.user.id,
          audit: { actorType: 'user', actorId: session.user.id, credential: 'browser_session', requestId: ctx.state.requestId },
          reason: null,
          accessTokenTtlMs: deps.accessTokenTtlMs,
          closePetitions: form.close_petitions === 'yes',
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
        return sendRefusal(ctx, publicUrl, 409, error.message);
      }
      ctx.append('Set-Cookie', sessions.clearSessionCookie());
      seeOther(ctx, '/goodbye');
    },
  });
}

function goodbyeRoute(publicUrl: string): AnyRouteSpec {
  return defineRoute({
    method: 'get',
    path: '/goodbye',
    operationId: 'browserAccountDeleted',
    tag,
    auth: 'none',
    summary: 'Says the account is being deleted (HTML)',
    responses: { 200: page('HTML page') },
    async handler(ctx) {
      sendBrowserPage(
        ctx,
        publicUrl,
        200,
        'Account deleted',
        html`<h1>Your account is being deleted</h1><p role="status">You are logged out everywhere. What remains is erased in the next few minutes.</p>
<p><a href="/">Back to Rally</a></p>`,
      );
    },
  });
}

export function createBrowserAccountDeletionRoutes(deps: AccountDeletionDependencies): AnyRouteSpec[] {
  return [confirmationRoute(deps), deletionRoute(deps), goodbyeRoute(deps.publicUrl)];
}
