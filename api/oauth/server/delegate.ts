// Rally's routes answer the provider's paths by handing the request to the provider, which writes the answer itself. Rally's route still did its part first:
// the declaration's rate limit and credentials, and the spec's request shapes (a JSON body on the token endpoint is handed over as the form-encoded parameters
// RFC 6749 specifies, which the provider reads).
import type { Provider } from 'oidc-provider';
import type { RallyContext } from '../../http/context.ts';
import { applySecurityHeaders } from '../../http/security-headers.ts';

const handlers = new WeakMap<Provider, ReturnType<Provider['callback']>>();

export async function serveWithProvider(ctx: RallyContext, provider: Provider, options: { https: boolean; params?: Record<string, string> }) {
  let handle = handlers.get(provider);
  if (!handle) handlers.set(provider, (handle = provider.callback()));
  if (options.params) {
    // The body was read (request-body.ts); the provider takes already-read form parameters from req.body.
    Object.assign(ctx.req, { body: options.params });
    ctx.req.headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  writeAnswerDirectly(ctx, options.https);
  await handle(ctx.req, ctx.res);
}

/** The provider is about to write the answer to the socket itself: Rally's headers go on first, and Koa stands aside. */
export function writeAnswerDirectly(ctx: RallyContext, https: boolean): void {
  applySecurityHeaders(ctx, https);
  ctx.respond = false;
}
