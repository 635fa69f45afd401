// Every security header Rally sends, in one place. The middleware gives every answer, errors included (it runs outside the error handler and is outermost but
// for metrics): no MIME sniffing, no referrer leaking paths to other sites, HSTS when Rally is served over https, the static HTML policy to HTML that set none,
// and the framing rule. Routes that send HTML with scripts or forms set one of the named policies below (`htmlPolicies`); nothing else writes these headers.
import type { Middleware } from 'koa';
import type { RallyContext, RallyState } from './context.ts';

// What pages with forms send instead of no-referrer: still nothing to other sites.
const FORM_PAGE_REFERRER_POLICY = 'same-origin';

/** For a page with forms (site/browser-pages.ts): its POSTs must carry their real Origin for the CSRF check. */
export function sendOriginWithForms(ctx: { set(name: string, value: string): void }): void {
  ctx.set('Referrer-Policy', FORM_PAGE_REFERRER_POLICY);
}

// Two years, the preload list's minimum (https://hstspreload.org).
const HSTS = 'max-age=63072000; includeSubDomains';

export type PagePolicy = { styleHash: string; imageOrigins?: string[] };

function originsOf(urls: string[]): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    try {
      origins.add(new URL(url).origin);
    } catch {
      // Not an absolute address: nothing to allow.
    }
  }
  return [...origins];
}

// Same-origin script only, the inline stylesheet by its hash, WebSocket back to us, forms (the guest
// signing form, site/sign/guest-sign-form.ts) posted back to us.
function scriptedPage(publicUrl: string, policy: PagePolicy, frameAncestors: string): string {
  const socketOrigin = publicUrl.replace(/^http/, 'ws');
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${policy.styleHash}`,
    `img-src 'self' ${originsOf(policy.imageOrigins ?? []).join(' ')}`.trim(),
    `connect-src 'self' ${socketOrigin}`,
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

/** The Content-Security-Policy of each kind of HTML answer. */
export const htmlPolicies = {
  /** HTML that runs no script and loads nothing (the /docs reference, problem pages): its own inline style only. */
  static: "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  /** The petition page (and its 404 and review notice): never framed. */
  page: (publicUrl: string, policy: PagePolicy) => scriptedPage(publicUrl, policy, "'none'"),
  /** The widget (/embed/…): framed by any site, which is its purpose. */
  widget: (publicUrl: string, policy: PagePolicy) => scriptedPage(publicUrl, policy, '*'),
  /**
   * /docs (Scalar): its script and the API only. Scalar's components set inline style attributes and
   * inject their stylesheet at run time, so style-src allows 'unsafe-inline' here, on this page alone;
   * script-src stays 'self' (no inline script runs, its configuration is a data attribute).
   */
  docs: (publicUrl: string) =>
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      `connect-src 'self' ${new URL(publicUrl).origin}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  /**
   * The OAuth consent screen (without a form: its error page): one inline script, by its hash; its form
   * posts here and is then redirected to the app's origin.
   */
  oauthConsent: (form?: { redirectOrigin: string; scriptHash: string }) =>
    [
      "default-src 'none'",
      ...(form ? [`script-src ${form.scriptHash}`] : []),
      "style-src 'unsafe-inline'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      `form-action 'self'${form ? ` ${form.redirectOrigin}` : ''}`,
    ].join('; '),
} as const;

// Read from the header itself: Koa's `is('html')` parses the content type and looks up MIME tables,
// a measurable cost on every answer of the lightest routes.
const isHtml = (contentType: unknown) => typeof contentType === 'string' && /^\s*text\/html\s*(?:;|$)/i.test(contentType);
const isWidget = (path: string) => path.startsWith('/embed/');
// The pages with the guest signing form: a same-origin form post must carry its true Origin, which
// Chromium replaces by "null" under no-referrer (the CSRF check of a form without a session reads it
// where Sec-Fetch-Site is not sent: plain-http origins). Other sites still get no referrer from them.
const hasSigningForm = (path: string) => path.startsWith('/p/') || path.startsWith('/embed/p/');

/**
 * Every answer's security headers. The middleware sets them after the route; an answer another Koa
 * app writes itself (the OAuth server, api/oauth/server/delegate.ts) gets them before it starts.
 */
export function applySecurityHeaders(ctx: RallyContext, https: boolean): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  // Pages with forms say same-origin (site/browser-pages.ts and the guest form's pages): under
  // no-referrer a browser sends their POSTs with Origin: null, and the CSRF checks need the real one.
  if (ctx.response.get('Referrer-Policy') !== FORM_PAGE_REFERRER_POLICY) {
    ctx.set('Referrer-Policy', hasSigningForm(ctx.path) ? FORM_PAGE_REFERRER_POLICY : 'no-referrer');
  }
  if (https) ctx.set('Strict-Transport-Security', HSTS);
  if (isHtml(ctx.response.get('Content-Type')) && !ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', htmlPolicies.static);
  // Only the widget may be framed; nothing else, neither pages nor the API (X-Frame-Options for
  // old browsers, CSP frame-ancestors for the rest).
  if (isWidget(ctx.path)) {
    ctx.remove('X-Frame-Options');
    if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', 'frame-ancestors *');
  } else {
    ctx.set('X-Frame-Options', 'DENY');
    const csp = String(ctx.response.get('Content-Security-Policy') ?? '');
    if (!csp) ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    else if (!csp.includes('frame-ancestors')) ctx.set('Content-Security-Policy', `${csp}; frame-ancestors 'none'`);
  }
}

export function createSecurityHeadersMiddleware(options: { publicUrl: string }): Middleware<RallyState> {
  const https = new URL(options.publicUrl).protocol === 'https:';
  return async function setSecurityHeaders(ctx, next) {
    try {
      await next();
    } finally {
      applySecurityHeaders(ctx, https);
    }
  };
}
