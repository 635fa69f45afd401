// Composes the Koa application: one middleware stack for every route, then the routes.
// Order matters and is read top to bottom: problems outermost, request context, rate limit, body,
// routes (each route's guard authenticates, checks its permission and applies Idempotency-Key).
import type { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../db/notifications.ts';
import { createApiKeyRoutes } from './api-keys/routes.ts';
import { createAccessTokenVerifier } from '../core/auth/access-tokens.ts';
import { createAuthenticator, type Authenticator } from './http/authenticate.ts';
import type { IdentityClient } from '../core/auth/identity-client.ts';
import { createLoginThrottle } from '../core/auth/login-throttle.ts';
import { createRevocationList } from '../core/auth/revocation-list.ts';
import { createAuthRoutes } from './auth/routes.ts';
import { assertPermitted } from '../core/auth/scopes.ts';
import { createUserDirectory } from '../core/users/directory.ts';
import type { Config } from '../platform/config.ts';
import { createHealthRoutes } from './health/routes.ts';
import { createJsonBodyMiddleware } from './http/body.ts';
import { createRequestContextMiddleware, type RallyContext, type RallyState } from './http/context.ts';
import { createErrorMiddleware } from './http/error-middleware.ts';
import { createIdempotencyMiddleware } from './http/idempotency.ts';
import { RallyError } from './http/problem.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { createRouteDispatcher } from './http/dispatch.ts';
import type { AnyRouteSpec, RouteGuard } from './http/route.ts';
import type { Logger } from '../platform/logger.ts';
import { buildOpenApiDocument } from './reference/openapi-document.ts';
import { createReferenceRoutes } from './reference/routes.ts';
import { createUserActivityRoutes } from './users/activity-routes.ts';
import { createUserRoutes } from './users/routes.ts';
import { createSignatureFeed, type SignatureFeed } from '../core/signatures/live-feed.ts';
import { createCaptchaVerifier } from '../core/signatures/recaptcha.ts';
import { createSignatureRoutes } from './signatures/routes.ts';
import { createWebhookRoutes } from './webhooks/routes.ts';
import { createNotificationRoutes } from './notifications/routes.ts';
import { createAccessCodeGuard } from '../core/petitions/access-code-guard.ts';
import { createPetitionExportRoutes } from './petitions/export.ts';
import { createLeaderboardRoutes } from './petitions/leaderboard.ts';
import { createPetitionRoutes } from './petitions/routes.ts';
import { createCommentRoutes } from './comments/routes.ts';
import { createPetitionUpdateRoutes } from './petition-updates/routes.ts';
import { createTransitionRoutes } from './petitions/transition-routes.ts';
import { createMediaRoutes } from './media/routes.ts';
import { createDecisionMakerRoutes } from './decision-makers/routes.ts';
import { createReportRoutes } from './reports/routes.ts';
import { createAdminReportRoutes } from './admin/report-routes.ts';
import { createAdminUserRoutes } from './admin/user-routes.ts';
import { createAdminContentRoutes } from './admin/content-routes.ts';
import { createAdminAuditRoutes } from './admin/audit-routes.ts';
import { networkBlockKey } from '../core/signatures/network-block.ts';

export type AppDependencies = {
  config: Config;
  db: DatabasePool;
  temporal: { connection: Connection; client: Client };
  notifications: NotificationListener;
  identity: IdentityClient;
  log: Logger;
};

export type RallyApp = { app: Koa<RallyState>; routes: AnyRouteSpec[]; feed: SignatureFeed; stop(): Promise<void> };

function createRouteGuard(deps: AppDependencies, authenticate: Authenticator): RouteGuard {
  const applyIdempotencyKey = createIdempotencyMiddleware({ db: deps.db, ttlMs: deps.config.idempotencyTtlMs });
  return (route) =>
    async function guardRoute(ctx, next) {
      if (route.auth !== 'none') ctx.state.principal = await authenticate(ctx);
      const principal = ctx.state.principal;
      if (route.auth === 'required' && !principal) {
        throw new RallyError('unauthorized', 'This route needs credentials: Authorization: Bearer <access token or API key>.', { headers: { 'WWW-Authenticate': 'Bearer' } });
      }
      if (principal && route.permission) assertPermitted(principal, route.permission);
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
  if (ctx.status === 404 && ctx.body === undefined) throw new RallyError('not-found', `There is no route ${ctx.method} ${ctx.path}.`);
}

export async function createApp(deps: AppDependencies): Promise<RallyApp> {
  const { config, db, notifications } = deps;
  const verifyAccessToken = createAccessTokenVerifier({ identity: deps.identity, audience: config.publicUrl });
  const revocations = await createRevocationList({ db, notifications });
  const users = await createUserDirectory({ db, notifications });
  const authenticate = createAuthenticator({ db, verifyAccessToken, revocations, users });
  const feed = await createSignatureFeed({ db, notifications, log: deps.log });
  const signLimiter = createRateLimiter({ db, rps: config.rateLimit.signPerHour / 3600, burst: config.rateLimit.signPerHour, log: deps.log });
  // The spec's petition export limit: 10 per minute per user.
  const exportLimiter = createRateLimiter({ db, rps: 10 / 60, burst: 10, log: deps.log });
  const reportLimiter = createRateLimiter({ db, rps: config.moderation.reportsPerHour / 3600, burst: config.moderation.reportsPerHour, log: deps.log });
  const networkKey = networkBlockKey(config.encryptionKey);
  const moderation = { db, temporal: deps.temporal.client, taskQueue: config.temporal.taskQueue };
  const rotation = { db, temporal: deps.temporal.client, taskQueue: config.temporal.taskQueue, gracePeriodMs: config.keyGracePeriodMs };

  let document: Record<string, unknown> | undefined;
  const routes = [
    ...createHealthRoutes({ db, temporal: deps.temporal.connection }),
    ...createReferenceRoutes(() => document!, config.publicUrl),
    ...createAuthRoutes({
      db, identity: deps.identity, verifyAccessToken, revocations,
      throttle: createLoginThrottle({ db, limit: config.loginFailureLimit }),
      refreshTokenTtlMs: config.identity.refreshTokenTtlMs,
    }),
    ...createUserActivityRoutes({ db }),
    ...createUserRoutes({ db }),
    ...createApiKeyRoutes(rotation),
    ...createWebhookRoutes({ db, config }),
    ...createNotificationRoutes({ db }),
    ...createTransitionRoutes({ db, temporal: deps.temporal.client, taskQueue: config.temporal.taskQueue }),
    ...createSignatureRoutes({ db, signLimiter, verifyCaptcha: createCaptchaVerifier(config.recaptcha), feed, networkKey }),
    ...createCommentRoutes({ db }),
    ...createPetitionUpdateRoutes({ db }),
    // Before the petition routes: /v1/petitions/export would otherwise be read as /v1/petitions/:slug.
    ...createLeaderboardRoutes({ db }),
    ...createPetitionExportRoutes({ db, exportLimiter }),
    ...createPetitionRoutes({ db, temporal: deps.temporal.client, taskQueue: config.temporal.taskQueue, accessCodeGuard: createAccessCodeGuard({ db }) }),
    ...createMediaRoutes({ db, temporal: deps.temporal.client, config }),
    ...createDecisionMakerRoutes({ db, temporal: deps.temporal.client, config }),
    ...createReportRoutes({ ...moderation, reportLimiter }),
    ...createAdminReportRoutes(moderation),
    ...createAdminUserRoutes(moderation),
    ...createAdminContentRoutes({ ...moderation, feed }),
    ...createAdminAuditRoutes({ ...moderation, networkKey }),
  ];
  document = buildOpenApiDocument(routes, { publicUrl: config.publicUrl, version: '1.0.0' });

  const dispatcher = createRouteDispatcher(routes, createRouteGuard(deps, authenticate));
  const limiter = config.rateLimit.enabled ? createRateLimiter({ db, rps: config.rateLimit.rps, burst: config.rateLimit.burst, log: deps.log }) : undefined;

  const app = new Koa<RallyState>();
  app.silent = true;
  app.use(createErrorMiddleware({ publicUrl: config.publicUrl, log: deps.log }));
  app.use(createRequestContextMiddleware({ trustProxy: config.trustProxy }));
  if (limiter) app.use(limiter.middleware);
  // Routes declared rawBody (uploads) stream their body themselves; the JSON parser leaves them alone.
  const rawBodyRoutes = new Set(routes.filter((route) => route.rawBody).map((route) => route.operationId));
  const takesRawBody = (ctx: RallyContext) =>
    dispatcher.routerFor(ctx.path)?.match(ctx.path, ctx.method).pathAndMethod.some((layer) => rawBodyRoutes.has(String(layer.name))) ?? false;
  app.use(createJsonBodyMiddleware({ limitBytes: config.bodyLimitBytes, rawBody: takesRawBody }));
  app.use(answerUnmatched);
  app.use(dispatcher.middleware);
  return {
    app, routes, feed,
    async stop() {
      limiter?.stop();
      signLimiter.stop();
      exportLimiter.stop();
      reportLimiter.stop();
      await feed.stop();
    },
  };
}
