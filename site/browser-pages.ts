// Small HTML pages of the browser flows: a refused or failed request (never a JSON problem or a
// bare 500 in a browser), and the account page. Same stylesheet and policy as the petition page.
import { html, trusted, type SafeHtml } from '../platform/html.ts';
import { PAGE_CSS, PAGE_CSS_HASH } from './styles.ts';
import { htmlPolicies, sendOriginWithForms } from '../api/http/security-headers.ts';
import type { RallyContext } from '../api/http/context.ts';
import type { BrowserUser } from '../core/browser-sessions/sessions.ts';

export function sendBrowserPage(ctx: RallyContext, publicUrl: string, status: number, title: string, body: SafeHtml): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  sendOriginWithForms(ctx);
  ctx.set('Content-Security-Policy', htmlPolicies.page(publicUrl, { styleHash: PAGE_CSS_HASH }));
  ctx.body = html`<!doctype html>
<html lang="en" data-theme="auto"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Rally</title><style>${trusted(PAGE_CSS)}</style></head>
<body><main>${body}</main></body></html>`.value;
}

/** A page rendered for the person logged in (the petition page with their form): never kept by a shared cache. */
export function sendPersonalPage(ctx: RallyContext, publicUrl: string, status: number, body: string, imageOrigins: string[] = []): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'private, no-store');
  sendOriginWithForms(ctx);
  ctx.set('Content-Security-Policy', htmlPolicies.page(publicUrl, { styleHash: PAGE_CSS_HASH, imageOrigins }));
  ctx.body = body;
}

/** Post/redirect/get: 303 to a path of this site, never kept by a cache. */
export function seeOther(ctx: RallyContext, path: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.redirect(path);
}

/** A request the page refuses: a 4xx with a sentence saying why and a way on. */
export function sendRefusal(ctx: RallyContext, publicUrl: string, status: number, message: string, back = '/account'): void {
  const title = status === 403 ? 'Request refused' : status === 429 ? 'Too many requests' : 'This did not work';
  sendBrowserPage(ctx, publicUrl, status, title, html`<h1>${title}</h1><p role="alert">${message}</p><p><a href="${back}">Go back</a></p>`);
}

/** The hidden field every form of a logged-in page carries. */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}">`;

export function accountPage(user: BrowserUser | undefined, csrfToken: string | undefined): SafeHtml {
  if (!user || !csrfToken) {
    return html`<h1>Your Rally account</h1><p>You are not logged in.</p>
<p><a class="btn" href="/login">Log in</a> <a href="/signup">Create an account</a></p>`;
  }
  return html`<h1>Your Rally account</h1><p>You are logged in as <strong data-user>${user.displayName}</strong>.</p>
${
  user.emailVerified
    ? ''
    : html`<p class="notice" role="status">Your email address is not confirmed yet: open the link we emailed you,
then log in again to sign petitions.</p>`
}
<form method="post" action="/logout">${csrfField(csrfToken)}<button type="submit" class="btn">Log out</button></form>
<form method="post" action="/logout/everywhere">${csrfField(csrfToken)}<button type="submit" class="btn secondary">Log out on every device</button></form>
<form method="post" action="/account/export">${csrfField(csrfToken)}<button type="submit" class="btn secondary">Download my data</button></form>
<p><a href="/account-deletion">Delete my account</a></p>`;
}
