// Composes the Koa application: one middleware stack for every route, then the routes. Order matters and is read top to bottom: problems outermost, request
// context, routes. Each route then enforces its own declaration (http/route-guard.ts): credentials, rate limit class, permission, body limit, Idempotency-Key;
// and its answers are held to its response schemas (http/response-check.ts).
import { createHmac } from 'node:crypto';
import Koa from 'koa';
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../db/notifications.ts';
import { createAccessTokenVerifier } from '../core/auth/access-tokens.ts';
import { createAuthenticator } from './http/authenticate.ts';
import type { IdentityClient } from '../core/auth/identity-client.ts';
import { createLoginThrottle } from '../core/auth/login-throttle.ts';
import { createRevocationList } from '../core/auth/revocation-list.ts';
import { createUserDirectory } from '../core/users/directory.ts';
import type { Config } from '../platform/config.ts';
import type { Orchestration } from '../orchestration/index.ts';
import { closeConnectionsWhileDraining, createReadiness, type Readiness } from './health/routes.ts';
import { createRequestContextMiddleware, type RallyContext, type RallyState } from './http/context.ts';
import { createErrorMiddleware } from './http/error-middleware.ts';
import { createUnreadBodyDrain } from './http/body.ts';
import { createSecurityHeadersMiddleware } from './http/security-headers.ts';
import { createIdempotencyMiddleware } from './http/idempotency.ts';
import { createRouteLimits, type RouteLimits } from './http/limits.ts';
import { createSigningListCache } from '../core/signatures/signing-list-cache.ts';
import { RallyError } from './http/problem.ts';
import { createRouteGuard } from './http/route-guard.ts';
import { createResponseCheck } from './http/response-check.ts';
import { createRouteDispatcher } from './http/dispatch.ts';
import type { AnyRouteSpec } from './http/route.ts';
import type { Logger } from '../platform/logger.ts';
import { loadServedDocument } from './reference/served-document.ts';
import { declareRoutes } from './route-table.ts';
import { createSignatureFeed, type SignatureFeed } from '../core/signatures/live-feed.ts';
import { createCaptchaVerifier } from '../core/signatures/recaptcha.ts';
import { createSignBatcher } from '../core/signatures/sign-batcher.ts';
import { createConfirmBatcher } from '../core/guest-signatures/confirm-batcher.ts';
import { createGuestFormBatcher } from '../core/guest-signatures/submit-batcher.ts';
import { createAccessCodeGuard } from '../core/petitions/access-code-guard.ts';
import { createPublicPetitionCache } from '../core/petitions/read-cache.ts';
import { checkGeolocationDatabases } from '../core/signatures/geolocation.ts';
import { createPetitionSearch } from '../core/search/search-cache.ts';
import { createCachedPetitionAnalytics } from '../core/analytics/analytics-cache.ts';
import { createPageViewCounter } from '../core/analytics/page-views.ts';
import { loadOAuthSigner } from '../core/oauth/signing-key.ts';
import { createAppAuthorizationServer } from './oauth/server/provider.ts';
import { networkBlockKey } from '../core/signatures/network-block.ts';
import { createBrowserSessions } from './http/browser-session.ts';
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
  const oauthSigner = await loadOAuthSigner(db, { issuer: config.publicUrl, encryptionKey: config.encryptionKey, notifications, log: deps.log });
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
  checkGeolocationDatabases().catch((error: Error) =>
    deps.log.warn('geolocation database unusable: signers are placed by their display location only', { error: error.message }),
  );
  const limits = await createRouteLimits({ db, log: deps.log, config, lists: await createSigningListCache({ db, notifications, log: deps.log }) });
  const signatures = createSignBatcher(db, { ...config.signBatch, log: deps.log });
  const guestForms = createGuestFormBatcher(db, {
    ...config.signBatch,
    encryptionKey: config.encryptionKey,
    confirmationTtlMs: config.signatureConfirmationTtlMs,
    emailsPerAddressPerDay: config.guestEmailsPerAddressPerDay,
  });
  const guestConfirmations = createConfirmBatcher(db, signatures, config.signBatch);
  const pageViews = createPageViewCounter({ db, flushIntervalMs: config.search.pageViewFlushMs, log: deps.log });

  const browserSessions = createBrowserSessions({
    db,
    publicUrl: config.publicUrl,
    nodeEnv: config.nodeEnv,
    encryptionKey: config.encryptionKey,
    lifetimes: { idleTtlMs: config.identity.sessionIdleTtlMs, maxTtlMs: config.identity.sessionMaxTtlMs },
  });

  const readiness = createReadiness();
  const document = loadServedDocument(config.publicUrl);
  const routes = declareRoutes({
    config,
    db,
    workflows: deps.workflows,
    identity: deps.identity,
    readiness,
    getDocument: () => document,
    oauthSigner,
    oauthServer: createAppAuthorizationServer({
      db,
      signer: oauthSigner,
      users,
      publicUrl: config.publicUrl,
      lifetimes: config.identity,
      encryptionKey: config.encryptionKey,
      trustProxy: config.trustProxy !== false,
      cookies: browserSessions.policy,
      log: deps.log,
    }),
    verifyAccessToken,
    revocations,
    loginThrottle: createLoginThrottle({ db, limit: config.loginFailureLimit, encryptionKey: config.encryptionKey }),
    feed,
    petitionCache,
    petitionAnalytics: await createCachedPetitionAnalytics({ db, notifications, log: deps.log }),
    petitionSearch: await createPetitionSearch({ db, timeoutMs: config.search.timeoutMs, notifications, log: deps.log }),
    signatures,
    users,
    guestForms,
    guestConfirmations,
    verifyCaptcha: createCaptchaVerifier(config.recaptcha),
    pageViews,
    accessCodeGuard: createAccessCodeGuard({ db }),
    networkKey: networkBlockKey(config.encryptionKey),
    browserSessions,
    limits,
  });

  // Fingerprints are keyed by a key of their own, derived from the server's encryption key.
  const fingerprintKey = createHmac('sha256', Buffer.from(config.encryptionKey, 'hex')).update('rally idempotency fingerprints').digest();
  const guard = createRouteGuard({
    authenticate,
    limits,
    defaultBodyLimit: config.bodyLimitBytes,
    idempotency: (options) => createIdempotencyMiddleware({ db, ttlMs: config.idempotencyTtlMs, fingerprintKey, ...options }),
  });
  const dispatcher = createRouteDispatcher(
    routes,
    guard,
    createResponseCheck({ strict: config.nodeEnv === 'test', compiled: config.nodeEnv === 'production', log: deps.log }),
  );

  observeDependencies({ db, temporal: deps.workflows });
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
      await limits.stop();
      await pageViews.stop();
      // Confirmations sign through the signature batcher: they stop first.
      await guestConfirmations.stop();
      await Promise.all([signatures.stop(), guestForms.stop()]);
      petitionCache.stop();
      await feed.stop();
    },
  };
}
