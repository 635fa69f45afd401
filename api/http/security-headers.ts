// Headers every answer carries, errors included (this middleware runs outside the error handler):
// no MIME sniffing, no referrer leaking paths to other sites, HSTS when Rally is served over https,
// and for HTML (the /docs reference and the problem pages) a CSP that allows only their own inline
// style: they run no script and load nothing.
import type { Middleware } from 'koa';
import type { RallyState } from './context.ts';

const HTML_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// Two years, the preload list's minimum (https://hstspreload.org).
const HSTS = 'max-age=63072000; includeSubDomains';

export function createSecurityHeadersMiddleware(options: { publicUrl: string }): Middleware<RallyState> {
  const https = new URL(options.publicUrl).protocol === 'https:';
  return async function setSecurityHeaders(ctx, next) {
    try {
      await next();
    } finally {
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      if (https) ctx.set('Strict-Transport-Security', HSTS);
      if (ctx.response.is('html')) {
        ctx.set('Content-Security-Policy', HTML_POLICY);
        ctx.set('X-Frame-Options', 'DENY');
      }
    }
  };
}
