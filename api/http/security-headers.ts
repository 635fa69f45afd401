// Headers every answer carries, errors included (this middleware runs outside the error handler):
// no MIME sniffing, no referrer leaking paths to other sites, HSTS when Rally is served over https,
// and for HTML without a policy of its own (the /docs reference, the problem pages) a CSP that allows
// only their own inline style: they run no script and load nothing.
import type { Middleware } from 'koa';
import type { RallyState } from './context.ts';

const HTML_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// Two years, the preload list's minimum (https://hstspreload.org).
const HSTS = 'max-age=63072000; includeSubDomains';
// Read from the header itself: Koa's `is('html')` parses the content type and looks up MIME tables,
// a measurable cost on every answer of the lightest routes.
const isHtml = (contentType: unknown) => typeof contentType === 'string' && /^\s*text\/html\s*(?:;|$)/i.test(contentType);

export function createSecurityHeadersMiddleware(options: { publicUrl: string }): Middleware<RallyState> {
  const https = new URL(options.publicUrl).protocol === 'https:';
  return async function setSecurityHeaders(ctx, next) {
    try {
      await next();
    } finally {
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      if (https) ctx.set('Strict-Transport-Security', HSTS);
      // Pages that run scripts of their own (the petition page, the widget) set their own policy;
      // who may frame what is decided once, in api/pages/framing.ts.
      if (isHtml(ctx.response.get('Content-Type')) && !ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', HTML_POLICY);
    }
  };
}
