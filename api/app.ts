// Composes the Koa application: one middleware stack for every route, then the routes.
// Order matters and is read top to bottom: problems outermost, request context, routes. Each route
// then enforces its own declaration (http/route-guard.ts): credentials, rate limit class, permission,
// body limit, Idempotency-Key; and its answers are held to its response schemas (http/response-check.ts).
import { createHmac } from 'node:crypto';
import Koa from 'koa';
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../db/notifications.ts';
import { createApiKeyRoutes } from './api-keys/routes.ts';
import { createAccessTokenVerifier } from '../core/auth/access-tokens.ts';
import { createAuthenticator } from './http/authenticate.ts';
import type { IdentityClient } from '../core/auth/identity-client.ts';
import { createLoginThrottle } from '../core/auth/login-throttle.ts';
import { createRevocationList } from '../core/auth/revocation-list.ts';
import { createAuthRoutes } from './auth/routes.ts';
import { createUserDirectory } from '../core/users/directory.ts';
import type { Config } from '../platform/config.ts';
import type { Orchestration } from '../orchestration/index.ts';
import { closeConnectionsWhileDraining, createHealthRoutes, createReadiness, type Readiness } from './health/routes.ts';
import { createRequestContextMiddleware, type RallyContext, type RallyState } from './http/context.ts';
import { createErrorMiddleware } from './http/error-middleware.ts';
import { createUnreadBodyDrain } from './http/body.ts';
import { createSecurityHeadersMiddleware } from './http/security-headers.ts';
import { createIdempotencyMiddleware } from './http/idempotency.ts';
import { createRouteLimits, type RouteLimits } from './http/limits.ts';
import { RallyError } from './http/problem.ts';
import { createRouteGuard } from './http/route-guard.ts';
import { createResponseCheck } from './http/response-check.ts';
import { createRouteDispatcher } from './http/dispatch.ts';
import type { AnyRouteSpec } from './http/route.ts';
import type { Logger } from '../platform/logger.ts';
import { buildOpenApiDocument } from './reference/openapi-document.ts';
import { createReferenceRoutes } from './reference/routes.ts';
import { createUserActivityRoutes } from './users/activity-routes.ts';
import { createUserRoutes } from './users/routes.ts';
import { createSignatureFeed, type SignatureFeed } from '../core/signatures/live-feed.ts';
import { createCaptchaVerifier } from '../core/signatures/recaptcha.ts';
import { createSignatureRoutes } from './signatures/routes.ts';
import { createSignBatcher } from '../core/signatures/sign-batcher.ts';
import { createWebhookRoutes } from './webhooks/routes.ts';
import { createNotificationRoutes } from './notifications/routes.ts';
import { createAccessCodeGuard } from '../core/petitions/access-code-guard.ts';
import { createPetitionExportRoutes } from './petitions/export.ts';
import { createLeaderboardRoutes } from './petitions/leaderboard.ts';
import { createPetitionRoutes } from './petitions/routes.ts';
import { createPublicPetitionCache } from '../core/petitions/read-cache.ts';
import { warmGeolocation } from '../core/signatures/geolocation.ts';
import { createCommentRoutes } from './comments/routes.ts';
import { createPetitionUpdateRoutes } from './petition-updates/routes.ts';
import { createTransitionRoutes } from './petitions/transition-routes.ts';
import { createMediaRoutes } from './media/routes.ts';
import { createDecisionMakerRoutes } from './decision-makers/routes.ts';
import { createSearchRoutes } from './search/routes.ts';
import { createPetitionSearch } from '../core/search/search-cache.ts';
import { createAnalyticsRoutes } from './analytics/routes.ts';
import { createCachedPetitionAnalytics } from '../core/analytics/analytics-cache.ts';
import { createPageViewCounter } from '../core/analytics/page-views.ts';
import { createEmbedRoutes } from './embeds/routes.ts';
import { createPageRoutes } from './pages/routes.ts';
import { loadOAuthSigner } from '../core/oauth/signing-key.ts';
import { createOAuthRoutes } from './oauth/routes.ts';
import { createAppAuthorizationRoutes } from './oauth/authorization-routes.ts';
import { createMemberRoutes } from './organizations/member-routes.ts';
import { createOrganizationApiKeyRoutes } from './organizations/api-key-routes.ts';
import { createInvitationRoutes } from './organizations/invitation-routes.ts';
import { createUnsubscribeRoutes } from './notifications/unsubscribe-routes.ts';
import { createOrganizationRoutes } from './organizations/routes.ts';
import { createReportRoutes } from './reports/routes.ts';
import { createAdminReportRoutes } from './admin/report-routes.ts';
import { createAdminUserRoutes } from './admin/user-routes.ts';
import { createAdminContentRoutes } from './admin/content-routes.ts';
import { createAdminAuditRoutes } from './admin/audit-routes.ts';
import { networkBlockKey } from '../core/signatures/network-block.ts';
import { createHttpMetricsMiddleware, createMetricsEndpoint, observeDependencies } from './http/observability.ts';

export type AppDependencies = {
  config: Config;
  db: DatabasePool;
  /** Every workflow start, signal, update and query (orchestration/). */
  workflows: Orchestration;
  notifications: NotificationListener;
  identity: IdentityClient;
  log: Logger;
};

/** `readiness.drain()` turns GET /health/ready to 503 ahead of shutdown (api/main.ts). */
export type RallyApp = { app: Koa<RallyState>; routes: AnyRouteSpec[]; feed: SignatureFeed; readiness: Readiness; stop(): Promise<void> };

// Unmatched paths and methods become problems; the router leaves them as bare statuses. They cost
// the caller's address like any request, so probing for routes is limited too.
const answerUnmatched = (limits: RouteLimits) =>
  async function answerUnmatched(ctx: RallyContext, next: Koa.Next) {
    await next();
    if (ctx.status === 405 || ctx.status === 501 || (ctx.status === 404 && ctx.body === undefined)) limits.chargeGeneral(ctx);
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = String(ctx.response.get('Allow'));
      throw new RallyError('method-not-allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}.`, { headers: { Allow: allow } });
    }
    if (ctx.status === 404 && ctx.body === undefined) throw new RallyError('not-found', `There is no route ${ctx.method} ${ctx.path}.`);
  };

export async function createApp(deps: AppDependencies): Promise<RallyApp> {
  const { config, db, notifications } = deps;
  const oauthSigner = await loadOAuthSigner(db, config.publicUrl, config.encryptionKey);
  const verifyAccessToken = createAccessTokenVerifier({
    identity: deps.identity,
    audience: config.publicUrl,
    apps: { issuer: oauthSigner.issuer, keySet: oauthSigner.keySet },
  });
  const revocations = await createRevocationList({ db, notifications });
  const users = await createUserDirectory({ db, notifications });
  const authenticate = createAuthenticator({ db, verifyAccessToken, revocations, users });
  const feed = await createSignatureFeed({ db, notifications, log: deps.log });
  const petitionCache = await createPublicPetitionCache({ db, notifications, feed, log: deps.log });
  // Signing places the signer by IP: the database files are opened now (a missing or broken one shows at start), not by the first signature.
  warmGeolocation().catch((error: Error) => deps.log.warn('geolocation database not preloaded', { error: error.message }));
  const limits = createRouteLimits({ db, log: deps.log, config });
  const signatures = createSignBatcher(db, { ...config.signBatch, log: deps.log });
  const pageViews = createPageViewCounter({ db, flushIntervalMs: config.search.pageViewFlushMs, log: deps.log });
  const networkKey = networkBlockKey(config.encryptionKey);
  const { workflows } = deps;
  const moderation = { db, workflows };
  const rotation = { db, workflows, gracePeriodMs: config.keyGracePeriodMs };

  const readiness = createReadiness();
  let document: Record<string, unknown> | undefined;
  const routes = [
    ...createHealthRoutes({ db, temporal: workflows, readiness }),
    ...createReferenceRoutes(() => document!, config.publicUrl),
    ...createAuthRoutes({
      db,
      identity: deps.identity,
      verifyAccessToken,
      revocations,
      throttle: createLoginThrottle({ db, limit: config.loginFailureLimit }),
      refreshTokenTtlMs: config.identity.refreshTokenTtlMs,
    }),
    ...createOAuthRoutes({ db, signer: oauthSigner, audience: config.publicUrl, publicUrl: config.publicUrl, lifetimes: config.identity }),
    ...createAppAuthorizationRoutes({ db }),
    ...createUserActivityRoutes({ db }),
    ...createUserRoutes({ db, httpsOnly: config.nodeEnv === 'production' }),
    ...createApiKeyRoutes(rotation),
    ...createWebhookRoutes({ db, config }),
    ...createUnsubscribeRoutes({ db, config }),
    ...createNotificationRoutes({ db }),
    ...createTransitionRoutes({ db, workflows }),
    ...createSignatureRoutes({ db, signatures, verifyCaptcha: createCaptchaVerifier(config.recaptcha), feed, networkKey }),
    ...createCommentRoutes({ db }),
    ...createPetitionUpdateRoutes({ db }),
    // Before the petition routes: /v1/petitions/export would otherwise be read as /v1/petitions/:slug.
    ...createLeaderboardRoutes({ db }),
    ...createPetitionExportRoutes({ db }),
    ...createAnalyticsRoutes({ db, petitions: petitionCache, petitionAnalytics: await createCachedPetitionAnalytics({ db, notifications, log: deps.log }) }),
    ...createPetitionRoutes({
      db,
      workflows,
      accessCodeGuard: createAccessCodeGuard({ db }),
      pageViews,
      cache: petitionCache,
      httpsOnly: config.nodeEnv === 'production',
    }),
    ...createMediaRoutes({ db, workflows, config }),
    ...createDecisionMakerRoutes({ db, workflows, config }),
    ...createSearchRoutes({ search: await createPetitionSearch({ db, timeoutMs: config.search.timeoutMs, notifications, log: deps.log }) }),
    ...createPageRoutes({ db, publicUrl: config.publicUrl, pageViews }),
    ...createEmbedRoutes({ db, publicUrl: config.publicUrl }),
    ...createMemberRoutes({ db }),
    ...createOrganizationApiKeyRoutes(rotation),
    ...createInvitationRoutes({ db, workflows, invitationTtlMs: config.invitationTtlMs }),
    ...createOrganizationRoutes({ db }),
    ...createReportRoutes({ ...moderation, networkKey, brigadeThreshold: config.moderation.brigadeThreshold }),
    ...createAdminReportRoutes(moderation),
    ...createAdminUserRoutes(moderation),
    ...createAdminContentRoutes({ ...moderation, feed }),
    ...createAdminAuditRoutes({ ...moderation, networkKey }),
  ];
  document = buildOpenApiDocument(routes, { publicUrl: config.publicUrl, version: '1.0.0' });

  // Fingerprints are keyed by a key of their own, derived from the server's encryption key.
  const fingerprintKey = createHmac('sha256', Buffer.from(config.encryptionKey, 'hex')).update('rally idempotency fingerprints').digest();
  const guard = createRouteGuard({
    authenticate,
    limits,
    defaultBodyLimit: config.bodyLimitBytes,
    idempotency: (options) => createIdempotencyMiddleware({ db, ttlMs: config.idempotencyTtlMs, fingerprintKey, ...options }),
  });
  const dispatcher = createRouteDispatcher(routes, guard, createResponseCheck({ strict: config.nodeEnv === 'test', log: deps.log }));

  observeDependencies({ db, temporal: workflows });
  const app = new Koa<RallyState>();
  app.silent = true;
  app.use(closeConnectionsWhileDraining(readiness));
  app.use(createHttpMetricsMiddleware(deps.log));
  app.use(createSecurityHeadersMiddleware({ publicUrl: config.publicUrl }));
  app.use(createUnreadBodyDrain());
  app.use(createErrorMiddleware({ publicUrl: config.publicUrl, log: deps.log }));
  app.use(createRequestContextMiddleware({ trustProxy: config.trustProxy }));
  app.use(createMetricsEndpoint({ token: config.observability.metricsToken }));
  app.use(answerUnmatched(limits));
  app.use(dispatcher.middleware);
  return {
    app,
    routes,
    feed,
    readiness,
    async stop() {
      limits.stop();
      await pageViews.stop();
      await signatures.stop();
      petitionCache.stop();
      await feed.stop();
    },
  };
}
