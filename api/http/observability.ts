// The API's side of metrics and traces: every answer counted and timed by route template (never the
// raw path, whose ids would make a series per petition), the server span named after the route, and
// GET /metrics in Prometheus text format, behind RALLY_METRICS_TOKEN when that is set.
import { trace } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import type { DatabasePool } from 'slonik';
import { pingDatabase } from '../../db/pool.ts';
import { metrics, observeLabelledGauge, renderMetrics } from '../../platform/metrics.ts';
import { metricsAuthorized } from '../../platform/metrics-server.ts';
import type { Logger } from '../../platform/logger.ts';
import type { RallyState } from './context.ts';
import { RallyError } from './problem.ts';

export const METRICS_PATH = '/metrics';

/** Outermost: sees the final status, problems included. At LOG_LEVEL=debug, one line per request. */
export function createHttpMetricsMiddleware(log: Logger): Middleware<RallyState> {
  return async function measureRequest(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const matched = ctx.state.route;
      const route = matched ?? (ctx.path === METRICS_PATH ? METRICS_PATH : 'unmatched');
      const status = String(ctx.status);
      metrics.http.record(route, ctx.method, status, seconds);
      log.debug?.('request', { request_id: ctx.state.requestId, route, method: ctx.method, status, duration_ms: Math.round(seconds * 1000) });
      const span = trace.getActiveSpan();
      if (span && matched !== undefined) {
        span.updateName(`${ctx.method} ${matched}`);
        span.setAttribute('http.route', matched);
      }
      if (span && ctx.state.requestId) span.setAttribute('rally.request_id', ctx.state.requestId);
    }
  };
}

/** GET /metrics; inside the error middleware, so a refused scrape is a 401 problem like any other. */
export function createMetricsEndpoint(options: { token: string | undefined }): Middleware<RallyState> {
  return async function serveMetrics(ctx, next) {
    if (ctx.path !== METRICS_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new RallyError('method-not-allowed', `${ctx.method} is not allowed on ${METRICS_PATH}; allowed: GET, HEAD.`, { headers: { Allow: 'GET, HEAD' } });
    }
    if (!metricsAuthorized(ctx.get('Authorization') || undefined, options.token)) {
      throw new RallyError('unauthorized', 'GET /metrics needs Authorization: Bearer <RALLY_METRICS_TOKEN>.', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const { body, contentType } = await renderMetrics();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  };
}

const CHECK_TIMEOUT_MS = 2_000;

async function answers(check: () => Promise<unknown>): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 1;
  } catch {
    return 0;
  } finally {
    clearTimeout(timer);
  }
}

/** rally_dependency_up{dependency="database"|"temporal"}, checked at each scrape (bounded). */
export function observeDependencies(deps: { db: DatabasePool; temporal: { ping(): Promise<unknown> } }): void {
  observeLabelledGauge('rally_dependency_up', async () => {
    const [database, temporal] = await Promise.all([answers(() => pingDatabase(deps.db)), answers(() => deps.temporal.ping())]);
    return { database, temporal };
  });
}
