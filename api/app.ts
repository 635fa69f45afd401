// Composes the Koa application: one middleware stack for every route, then the routers.
// Order matters and is read top to bottom: problems outermost, request context, body, routes.
import Router from '@koa/router';
import type { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import type { DatabasePool } from 'slonik';
import type { Config } from './config.ts';
import { createHealthRoutes } from './health/routes.ts';
import { createJsonBodyMiddleware } from './http/body.ts';
import { createRequestContextMiddleware, type Principal, type RallyContext, type RallyState } from './http/context.ts';
import { createErrorMiddleware } from './http/error-middleware.ts';
import { createIdempotencyMiddleware } from './http/idempotency.ts';
import { RallyError } from './http/problem.ts';
import { mountRoutes, type AnyRouteSpec, type RouteGuard } from './http/route.ts';
import type { Logger } from './logger.ts';
import { buildOpenApiDocument } from './reference/openapi-document.ts';
import { createReferenceRoutes } from './reference/routes.ts';

export type AppDependencies = {
  config: Config;
  db: DatabasePool;
  temporal: { connection: Connection; client: Client };
  log: Logger;
  /** Resolves the caller from the request's credentials; undefined when it carries none. */
  authenticate?: (ctx: RallyContext) => Promise<Principal | undefined>;
};

export function collectRoutes(deps: AppDependencies, getDocument: () => Record<string, unknown>): AnyRouteSpec[] {
  return [...createHealthRoutes({ db: deps.db, temporal: deps.temporal.connection }), ...createReferenceRoutes(getDocument)];
}

function createRouteGuard(deps: AppDependencies): RouteGuard {
  const applyIdempotencyKey = createIdempotencyMiddleware({ db: deps.db, ttlMs: deps.config.idempotencyTtlMs });
  return (route) =>
    async function guardRoute(ctx, next) {
      if (route.auth !== 'none' && deps.authenticate) ctx.state.principal = await deps.authenticate(ctx);
      if (route.auth === 'required' && !ctx.state.principal) {
        throw new RallyError('unauthorized', 'This route needs credentials: Authorization: Bearer <access token or API key>.', {
          headers: { 'WWW-Authenticate': 'Bearer' },
        });
      }
      return route.method === 'post' ? applyIdempotencyKey(ctx, next) : next();
    };
}

// Unmatched paths and methods become problems; the router leaves them as bare statuses.
async function answerUnmatched(ctx: RallyContext, next: Koa.Next) {
  await next();
  if (ctx.status === 405 || ctx.status === 501) {
    const allow = String(ctx.response.get('Allow'));
    throw new RallyError('method-not-allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}.`, { headers: { Allow: allow } });
  }
  if (ctx.status === 404 && ctx.body === undefined) {
    throw new RallyError('not-found', `There is no route ${ctx.method} ${ctx.path}.`);
  }
}

export function createApp(deps: AppDependencies): Koa<RallyState> {
  const app = new Koa<RallyState>();
  app.silent = true;

  let document: Record<string, unknown> | undefined;
  const routes = collectRoutes(deps, () => document!);
  document = buildOpenApiDocument(routes, { publicUrl: deps.config.publicUrl, version: '1.0.0' });

  const router = new Router<RallyState>();
  mountRoutes(router, routes, createRouteGuard(deps));

  app.use(createErrorMiddleware({ publicUrl: deps.config.publicUrl, log: deps.log }));
  app.use(createRequestContextMiddleware({ trustProxy: deps.config.trustProxy }));
  app.use(createJsonBodyMiddleware({ limitBytes: deps.config.bodyLimitBytes }));
  app.use(answerUnmatched);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
