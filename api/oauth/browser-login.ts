// A browser that opens /oauth/authorize with neither a Bearer nor a Rally login is sent to /login
// (site/account/login-routes.ts) and comes back to the same authorization request, now logged in.
import type { RallyContext } from '../http/context.ts';
import { RallyError } from '../http/problem.ts';

/** A navigation by a browser (it asks for HTML by name), as opposed to an API client's request. */
const wantsHtml = (ctx: RallyContext) => /(^|,)\s*text\/html\b/i.test(ctx.get('Accept'));

/**
 * For a request without a Bearer: a browser goes to `/login?return_to=<this request>` (a relative
 * path on this origin, so the login page cannot be turned into an open redirect); anything else gets
 * the spec's 401.
 */
export function sendToLogin(ctx: RallyContext): void {
  if (!wantsHtml(ctx)) {
    throw new RallyError('unauthorized', 'Authorizing an app needs the user: Authorization: Bearer <access token>, or a browser login.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(`/login?${new URLSearchParams({ return_to: ctx.originalUrl })}`);
}
