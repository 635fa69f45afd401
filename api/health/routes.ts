// GET /health: liveness plus the reachability of PostgreSQL and Temporal, for load balancers and
// operators. Each dependency check is bounded so a hung dependency cannot hang the probe.
import { Type } from '@sinclair/typebox';
import type { Connection } from '@temporalio/client';
import type { DatabasePool } from 'slonik';
import { pingDatabase } from '../../db/pool.ts';
import { defineRoute } from '../http/route.ts';

const DEPENDENCY_TIMEOUT_MS = 2_000;

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  timestamp: Type.String({ format: 'date-time' }),
  checks: Type.Object({
    database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
    temporal: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  }),
});

async function reachable(check: () => Promise<unknown>): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), DEPENDENCY_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

export function createHealthRoutes(deps: { db: DatabasePool; temporal: Connection }) {
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Service health, with the reachability of PostgreSQL and Temporal',
      tag: 'Health',
      auth: 'none',
      responses: { 200: { description: 'Everything reachable', schema: HealthSchema }, 503: { description: 'A dependency is down', schema: HealthSchema } },
      async handler(ctx) {
        const [database, temporal] = await Promise.all([
          reachable(() => pingDatabase(deps.db)),
          reachable(() => deps.temporal.healthService.check({})),
        ]);
        const status = database === 'ok' && temporal === 'ok' ? 'ok' : 'degraded';
        ctx.status = status === 'ok' ? 200 : 503;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { status, timestamp: new Date().toISOString(), checks: { database, temporal } };
      },
    }),
  ];
}
