// Enforces what a route declares (route.ts) before its handler runs, in this order: credentials (verified when `auth` is not `none`); rate limits, charged to
// the verified credential, else the client address (IPv6 by /64); then permission, body (the route's own limit; raw-body routes are left alone) and
// Idempotency-Key. A made-up credential is charged to its address and answered 401, so changing the Authorization header buys nothing.
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import { assertPermitted } from '../../core/auth/scopes.ts';
import { requireAppScope } from './app-scopes.ts';
import type { Authenticator } from './authenticate.ts';
import { createJsonBodyMiddleware } from './body.ts';
import type { RallyState } from './context.ts';
import type { IdempotencyOptions } from './idempotency.ts';
import type { RouteLimits } from './limits.ts';
import { RallyError } from './problem.ts';
import type { AnyRouteSpec, RouteGuard } from './route.ts';

export type RouteGuardDependencies = {
  authenticate: Authenticator;
  /** What each rate-limit class costs (limits.ts). */
  limits: RouteLimits;
  defaultBodyLimit: number;
  idempotency: (options: IdempotencyOptions) => Middleware<RallyState>;
};

export function createRouteGuard(deps: RouteGuardDependencies): RouteGuard {
  return (route) => {
    const steps: Middleware<RallyState>[] = [
      async function authenticateAndLimit(ctx, next) {
        if (route.auth !== 'none') {
          try {
            ctx.state.principal = await deps.authenticate(ctx, { suspendedMayCall: route.suspendedMayCall });
          } catch (error) {
            // The refused attempt costs its address; a 429 wins once the address is out of budget.
            if (route.rateLimit !== 'none') deps.limits.chargeGeneral(ctx);
            throw error;
          }
        }
        await deps.limits.chargeClass(ctx, route.rateLimit ?? 'default');
        const principal = ctx.state.principal;
        if (route.auth === 'required' && !principal && ctx.state.appOnlyClientId) {
          throw new RallyError('forbidden', "This app's token acts for no user (client_credentials without an owner): it reaches public reads only.", {
            code: 'user_required',
          });
        }
        if (route.auth === 'required' && !principal) {
          throw new RallyError('unauthorized', 'This route needs credentials: Authorization: Bearer <access token or API key>.', {
            headers: { 'WWW-Authenticate': 'Bearer' },
          });
        }
        // OAuth apps reach only the routes whose declared scope their token covers (app-scopes.ts), and
        // then still need the permission, as plain users (never administrators: authenticate.ts).
        requireAppScope(principal, route.scope);
        if (principal && route.permission) assertPermitted(principal, route.permission);
        return next();
      },
    ];
    // A GET (and the HEAD answered by it) carries no body to parse: the body step would only pass it on.
    if (!route.rawBody && route.method !== 'get') steps.push(createJsonBodyMiddleware({ limitBytes: route.bodyLimit ?? deps.defaultBodyLimit }));
    if (route.idempotent ?? route.method === 'post') steps.push(deps.idempotency({ revealsSecret: route.revealsSecret ?? false }));
    return steps.length === 1 ? steps[0]! : compose(steps);
  };
}
