// Probes for load balancers, orchestrators and operators: GET /health (the spec's check of PostgreSQL and Temporal), /health/live (the process answers at all)
// and /health/ready (whether to send this process traffic). Dependency status is cached for up to a second (dependency-status.ts).
import type { Middleware } from 'koa';
import type { DatabasePool } from 'slonik';
import { pingDatabase } from '../../db/pool.ts';
import { defineRoute } from '../http/route.ts';
import type { RallyContext } from '../http/context.ts';
import { allReachable, createDependencyStatus } from './dependency-status.ts';
import { Health as HealthSchema, Liveness as LivenessSchema, Readiness as ReadinessSchema } from './schemas.ts';

/** Flipped once when the process starts shutting down; readiness answers 503 from then on. */
export type Readiness = { readonly draining: boolean; drain(): void };

export function createReadiness(): Readiness {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
  };
}

/**
 * While draining, every answer closes its connection (`Connection: close`): a keep-alive client then
 * opens its next connection through the load balancer, which no longer picks this process, instead of
 * reusing one that is about to be closed under it.
 */
export function closeConnectionsWhileDraining(readiness: Readiness): Middleware {
  return async (ctx, next) => {
    if (readiness.draining) ctx.set('Connection', 'close');
    await next();
  };
}

function answer(ctx: RallyContext, healthy: boolean, body: object): void {
  ctx.status = healthy ? 200 : 503;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { ...body, timestamp: new Date().toISOString() };
}

// GET /health answers 503 `degraded` when PostgreSQL or Temporal is down or restarting. A failing liveness
// probe means "restart me", so /health/live never depends on PostgreSQL or Temporal: an outage there must not
// restart every API process. /health/ready wants dependencies reachable and the process not shutting down: on
// SIGTERM the API answers 503 here first (api/main.ts), so balancers stop routing to it before it stops
// accepting connections, and closes each keep-alive connection after its answer.
export function createHealthRoutes(deps: { db: DatabasePool; temporal: { ping(): Promise<unknown> }; readiness: Readiness }) {
  const dependencies = createDependencyStatus({
    checks: { database: () => pingDatabase(deps.db), temporal: () => deps.temporal.ping() },
  });
  const common = { tag: 'Health', auth: 'none', rateLimit: 'none' } as const;
  return [
    defineRoute({
      ...common,
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Check service health',
      description: 'Service health, with the reachability of PostgreSQL and Temporal.',
      responses: {
        200: { description: 'Everything reachable', schema: HealthSchema },
        503: { description: 'A dependency is down or restarting', schema: HealthSchema },
      },
      async handler(ctx) {
        const { checks } = await dependencies.current();
        const healthy = allReachable(checks);
        answer(ctx, healthy, { status: healthy ? 'ok' : 'degraded', checks });
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: '/health/live',
      operationId: 'getLiveness',
      summary: 'Check liveness',
      description: 'Liveness: the process answers (independent of PostgreSQL and Temporal).',
      responses: { 200: { description: 'The process is alive', schema: LivenessSchema } },
      async handler(ctx) {
        answer(ctx, true, { status: 'ok' });
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: '/health/ready',
      operationId: 'getReadiness',
      summary: 'Check readiness',
      description: 'Readiness: dependencies reachable and the process not shutting down.',
      responses: {
        200: { description: 'Ready for traffic', schema: ReadinessSchema },
        503: { description: 'Shutting down, or a dependency is down or restarting', schema: ReadinessSchema },
      },
      async handler(ctx) {
        const { checks } = await dependencies.current();
        const status = deps.readiness.draining ? 'shutting_down' : allReachable(checks) ? 'ok' : 'degraded';
        answer(ctx, status === 'ok', { status, checks });
      },
    }),
  ];
}
