// Who may put Rally in a frame: the widget (/embed/…) by any site, which is its purpose; nothing
// else, neither the pages nor the API (X-Frame-Options for old browsers, CSP frame-ancestors for
// the rest). Outermost in the stack, so problems and 404s get the same headers. Only framing is
// decided here; other security headers live elsewhere.
import type { Middleware } from 'koa';
import type { RallyState } from '../http/context.ts';

const isWidget = (path: string) => path.startsWith('/embed/');

export function createFramingPolicy(): Middleware<RallyState> {
  return async function applyFramingPolicy(ctx, next) {
    try {
      await next();
    } finally {
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
  };
}
