// Finds a request's route in a radix tree (find-my-way: one tree per method, static segments before parameters, so /v1/petitions/export wins over
// /v1/petitions/:slug whatever the order of declaration) and runs that route's own chain: response check, route guard, handler. A lookup costs with the path's
// length, not the number of routes.
import compose from 'koa-compose';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Middleware } from 'koa';
import type { RallyContext, RallyState } from './context.ts';
import type { ResponseCheck } from './response-check.ts';
import type { AnyRouteSpec, RouteGuard } from './route.ts';
import { compileValidator, type Validator } from './validation.ts';

export type RouteDispatcher = { middleware: Middleware<RallyState> };

const IMPLEMENTED = ['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE'];

type Matched = { path: string; chain: Middleware<RallyState> };

// Kept from the previous router (@koa/router), as clients may rely on it: paths match case-insensitively and
// with or without a trailing slash, HEAD runs the GET route (Koa sends no body), OPTIONS answers 200 with
// Allow, a known path with another method 405 and an unknown method 501 (both with Allow, turned into problems
// by the app); an unknown path is left as 404.
export function createRouteDispatcher(routes: AnyRouteSpec[], guard: RouteGuard, checkResponse: ResponseCheck): RouteDispatcher {
  // No limit of its own on a parameter's length: the routes' schemas bound them and answer 4xx.
  const router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 64 * 1024 });
  const methods = new Set<string>();
  for (const route of routes) {
    const method = route.method.toUpperCase() as HTTPMethod;
    const matched: Matched = { path: route.path, chain: compose(routeChain(route, guard, checkResponse)) };
    router.on(method, route.path, () => undefined, matched);
    methods.add(method);
    if (method === 'GET') methods.add('HEAD');
  }
  const allowedOn = (path: string): string[] => [...methods].filter((method) => router.find((method === 'HEAD' ? 'GET' : method) as HTTPMethod, path) !== null);

  return {
    middleware(ctx, next) {
      const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
      const found = methods.has(method) ? router.find(method as HTTPMethod, ctx.path) : null;
      if (found) {
        const { path, chain } = found.store as Matched;
        (ctx as RallyContext & { params: Record<string, string | undefined> }).params = found.params;
        ctx.state.route = path;
        return chain(ctx, next);
      }
      const allowed = allowedOn(ctx.path);
      if (allowed.length === 0) return next();
      ctx.set('Allow', allowed.join(', '));
      if (!IMPLEMENTED.includes(ctx.method)) ctx.status = 501;
      else if (ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
      } else ctx.status = 405;
      return Promise.resolve();
    },
  };
}

/** The middleware a route runs once matched: its response check, its guard, then its handler. */
export function routeChain(route: AnyRouteSpec, guard: RouteGuard, checkResponse: ResponseCheck): Middleware<RallyState>[] {
  const validate = {
    params: compileValidator(route.params ?? null, 'params'),
    query: compileValidator(route.query ?? null, 'query'),
    body: route.body ? compileValidator(route.body, 'body') : undefined,
  };
  return [checkResponse(route), guard(route), runHandler(route, validate)];
}

function runHandler(route: AnyRouteSpec, validate: { params: Validator; query: Validator; body: Validator | undefined }): Middleware<RallyState> {
  return async function handleRoute(ctx) {
    const routerCtx = ctx as RallyContext & { params: Record<string, string> };
    const params = validate.params({ ...routerCtx.params });
    const query = validate.query({ ...ctx.query });
    const rawBody = (ctx.request as { body?: unknown }).body;
    const body = validate.body ? validate.body(rawBody ?? {}) : undefined;
    await route.handler(ctx, { params, query, body });
  };
}
