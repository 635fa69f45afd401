// Routes are grouped by their leading static path segments ("/v1/petitions", "/health"), one
// @koa/router per group, and a request goes straight to its group's router. A single router tests
// every route's pattern on every request; with a hundred routes that cost a third of the API's
// throughput on the lightest routes (measured with `npm run bench`).
import Router from '@koa/router';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { RallyState } from './context.ts';
import type { ResponseCheck } from './response-check.ts';
import { mountRoutes, type AnyRouteSpec, type RouteGuard } from './route.ts';

/** The first two path segments, stopping at the first `:param`: "/v1/petitions/:id" → "/v1/petitions". */
function groupOfPattern(path: string): string {
  const segments = path.split('/').filter(Boolean);
  const fixed = segments.slice(0, 2);
  const firstParam = fixed.findIndex((segment) => segment.startsWith(':'));
  return `/${(firstParam === -1 ? fixed : fixed.slice(0, firstParam)).join('/')}`;
}

export type RouteDispatcher = { middleware: Middleware<RallyState> };

export function createRouteDispatcher(routes: AnyRouteSpec[], guard: RouteGuard, checkResponse: ResponseCheck): RouteDispatcher {
  const routers = new Map<string, Router<RallyState>>();
  for (const route of routes) {
    const group = groupOfPattern(route.path);
    if (!routers.has(group)) routers.set(group, new Router<RallyState>());
    mountRoutes(routers.get(group)!, [route], guard, checkResponse);
  }
  const handlers = new Map([...routers].map(([group, router]) => [group, compose([router.routes(), router.allowedMethods()]) as Middleware<RallyState>]));

  // A request path names its group by its first two segments, or by its first alone ("/problems/x").
  const groupOf = (path: string): string | undefined => {
    const [first, second] = path.split('/', 3).slice(1);
    if (second !== undefined && handlers.has(`/${first}/${second}`)) return `/${first}/${second}`;
    return handlers.has(`/${first}`) ? `/${first}` : undefined;
  };

  return {
    middleware(ctx, next) {
      const group = groupOf(ctx.path);
      return group ? handlers.get(group)!(ctx, next) : next();
    },
  };
}
