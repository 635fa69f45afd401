// Enforces what a route declares (route.ts) before its handler runs, in this order:
// 1. credentials: verified when the route looks at them (`auth` other than `none`);
// 2. rate limits: charged to the verified credential (API key or user), else to the client address
//    (IPv6 by /64). A made-up credential never gets a bucket of its own: the request is charged to
//    its address and answered 401, so changing the Authorization header buys nothing;
// 3. permission, body (the route's own limit, or left alone for raw-body routes), Idempotency-Key.
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import { assertAppPermitted, assertPermitted } from '../../core/auth/scopes.ts';
import type { Authenticator } from './authenticate.ts';
import { createJsonBodyMiddleware } from './body.ts';
import type { RallyContext, RallyState } from './context.ts';
import type { IdempotencyOptions } from './idempotency.ts';
import { RallyError } from './problem.ts';
import { addressBucketKey, type RateLimiter } from './rate-limit.ts';
import { metrics } from '../../platform/metrics.ts';
import type { AnyRouteSpec, RouteGuard } from './route.ts';
import type { SignThrottle } from './sign-throttle.ts';

export type RouteLimiters = {
  /** Every class but `none` spends from it; absent when rate limiting is switched off. */
  general?: RateLimiter;
  /** Per address, network block and email domain (sign-throttle.ts). */
  sign: SignThrottle;
  export: RateLimiter;
  report: RateLimiter;
};

export type RouteGuardDependencies = {
  authenticate: Authenticator;
  limiters: RouteLimiters;
  defaultBodyLimit: number;
  idempotency: (options: IdempotencyOptions) => Middleware<RallyState>;
};

function callerBucketKey(ctx: RallyContext): string {
  const principal = ctx.state.principal;
  if (!principal) return addressBucketKey(ctx.state.clientIp);
  return principal.apiKeyId ? `key:${principal.apiKeyId}` : `user:${principal.userId}`;
}

function spend(limiter: RateLimiter, key: string, refusal: { detail: string; code: string }) {
  const decision = limiter.take(key);
  if (!decision.allowed) metrics.rateLimitRejections.inc({ limit: refusal.code });
  if (!decision.allowed) throw new RallyError('rate-limited', refusal.detail, { code: refusal.code, headers: { 'Retry-After': String(decision.retryAfterSeconds) } });
}

/** Charges the caller's general bucket and describes it in X-RateLimit-* headers. */
export function chargeGeneral(ctx: RallyContext, limiter: RateLimiter | undefined): void {
  if (!limiter) return;
  const decision = limiter.take(callerBucketKey(ctx));
  ctx.set('X-RateLimit-Limit', String(decision.limit));
  ctx.set('X-RateLimit-Remaining', String(decision.remaining));
  ctx.set('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) {
    metrics.rateLimitRejections.inc({ limit: 'general' });
    throw new RallyError('rate-limited', `Too many requests: at most ${limiter.rps} per second with bursts of ${limiter.burst}.`, { headers: { 'Retry-After': String(decision.retryAfterSeconds) } });
  }
}

async function chargeClass(ctx: RallyContext, route: AnyRouteSpec, limiters: RouteLimiters): Promise<void> {
  const rateClass = route.rateLimit ?? 'default';
  if (rateClass === 'none') return;
  chargeGeneral(ctx, limiters.general);
  if (rateClass === 'sign') {
    await limiters.sign.charge({ clientIp: ctx.state.clientIp, userId: ctx.state.principal?.userId });
  } else if (rateClass === 'report') {
    spend(limiters.report, `report:${ctx.state.principal ? `user:${ctx.state.principal.userId}` : addressBucketKey(ctx.state.clientIp)}`, { detail: 'You have filed too many reports; try again later.', code: 'report_limit' });
  } else if (rateClass === 'export') {
    spend(limiters.export, `export:${ctx.state.principal ? `user:${ctx.state.principal.userId}` : addressBucketKey(ctx.state.clientIp)}`, { detail: 'At most 10 exports per minute; wait before the next one.', code: 'export_limit' });
  }
}

export function createRouteGuard(deps: RouteGuardDependencies): RouteGuard {
  return (route) => {
    const steps: Middleware<RallyState>[] = [
      async function authenticateAndLimit(ctx, next) {
        if (route.auth !== 'none') {
          try {
            ctx.state.principal = await deps.authenticate(ctx);
          } catch (error) {
            // The refused attempt costs its address; a 429 wins once the address is out of budget.
            if (route.rateLimit !== 'none') chargeGeneral(ctx, deps.limiters.general);
            throw error;
          }
        }
        await chargeClass(ctx, route, deps.limiters);
        const principal = ctx.state.principal;
        if (route.auth === 'required' && !principal) {
          throw new RallyError('unauthorized', 'This route needs credentials: Authorization: Bearer <access token or API key>.', { headers: { 'WWW-Authenticate': 'Bearer' } });
        }
        // OAuth apps reach only the routes their scopes name (core/auth/scopes.ts), never one without a permission.
        if (principal?.kind === 'oauth_app') assertAppPermitted(principal, route);
        else if (principal && route.permission) assertPermitted(principal, route.permission);
        return next();
      },
    ];
    // A GET (and the HEAD answered by it) carries no body to parse: the body step would only pass it on.
    if (!route.rawBody && route.method !== 'get') steps.push(createJsonBodyMiddleware({ limitBytes: route.bodyLimit ?? deps.defaultBodyLimit }));
    if (route.idempotent ?? route.method === 'post') steps.push(deps.idempotency({ revealsSecret: route.revealsSecret ?? false }));
    return steps.length === 1 ? steps[0]! : compose(steps);
  };
}
