// Every route of the API, in matching order, from the services they use. One list for the running
// app (app.ts builds the services) and for the offline OpenAPI build (scripts/openapi.ts passes
// services that are never called): the document is written from the same declarations that serve.
import type { DatabasePool } from 'slonik';
import type { AccessTokenVerifier } from '../core/auth/access-tokens.ts';
import type { IdentityClient } from '../core/auth/identity-client.ts';
import type { LoginThrottle } from '../core/auth/login-throttle.ts';
import type { RevocationList } from '../core/auth/revocation-list.ts';
import type { CachedPetitionAnalytics } from '../core/analytics/analytics-cache.ts';
import type { PageViewCounter } from '../core/analytics/page-views.ts';
import type { OAuthSigner } from '../core/oauth/signing-key.ts';
import type { AppAuthorizationServer } from './oauth/server/provider.ts';
import type { AccessCodeGuard } from '../core/petitions/access-code-guard.ts';
import type { PublicPetitionCache } from '../core/petitions/read-cache.ts';
import type { PetitionSearch } from '../core/search/search-cache.ts';
import type { SignatureFeed } from '../core/signatures/live-feed.ts';
import type { CaptchaVerifier } from '../core/signatures/recaptcha.ts';
import type { SignBatcher } from '../core/signatures/sign-batcher.ts';
import type { UserDirectory } from '../core/users/directory.ts';
import type { Orchestration } from '../orchestration/index.ts';
import type { Config } from '../platform/config.ts';
import type { BrowserSessions } from './http/browser-session.ts';
import type { RouteLimits } from './http/limits.ts';
import { createApiKeyRoutes } from './api-keys/routes.ts';
import { createAuthRoutes } from './auth/routes.ts';
import { createHealthRoutes, type Readiness } from './health/routes.ts';
import type { AnyRouteSpec } from './http/route.ts';
import { createReferenceRoutes } from './reference/routes.ts';
import { createUserActivityRoutes } from './users/activity-routes.ts';
import { createUserRoutes } from './users/routes.ts';
import { createExportRoutes } from './users/export-routes.ts';
import { createMediaStorage } from '../platform/storage/create-media-storage.ts';
import { createAccountDeletionRoutes } from './users/deletion-routes.ts';
import { createSignatureRoutes } from './signatures/routes.ts';
import { createWebhookRoutes } from './webhooks/routes.ts';
import { createNotificationRoutes } from './notifications/routes.ts';
import { createPetitionExportRoutes } from './petitions/export.ts';
import { createLeaderboardRoutes } from './petitions/leaderboard.ts';
import { createPetitionRoutes } from './petitions/routes.ts';
import { createCommentRoutes } from './comments/routes.ts';
import { createPetitionUpdateRoutes } from './petition-updates/routes.ts';
import { createTransitionRoutes } from './petitions/transition-routes.ts';
import { createMediaRoutes } from './media/routes.ts';
import { createDecisionMakerRoutes } from './decision-makers/routes.ts';
import { createSearchRoutes } from './search/routes.ts';
import { createAnalyticsRoutes } from './analytics/routes.ts';
import { createEmbedRoutes } from './embeds/routes.ts';
import { createPageRoutes } from '../site/petition/routes.ts';
import { createGuestSignRoutes } from '../site/sign/guest-sign-routes.ts';
import { createGuestMailStopRoutes } from '../site/sign/guest-mail-stop-routes.ts';
import type { GuestFormBatcher } from '../core/guest-signatures/submit-batcher.ts';
import type { ConfirmBatcher } from '../core/guest-signatures/confirm-batcher.ts';
import { createOAuthRoutes } from './oauth/routes.ts';
import { createDeveloperAppRoutes } from './oauth/app-routes.ts';
import { createBrowserLoginRoutes } from '../site/account/login-routes.ts';
import { createBrowserAccountDeletionRoutes } from '../site/account/deletion-routes.ts';
import { createBrowserExportRoutes } from '../site/account/export-routes.ts';
import { createBrowserSignRoutes } from '../site/sign/logged-in-sign-routes.ts';
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
import { createAdminFraudRoutes } from './admin/fraud-routes.ts';

/** What the routes are built from: the long-lived services app.ts starts. */
export type RouteServices = {
  config: Config;
  db: DatabasePool;
  workflows: Orchestration;
  identity: IdentityClient;
  readiness: Readiness;
  /** The OpenAPI document, built once the routes exist (reference/routes.ts serves it). */
  getDocument: () => Record<string, unknown>;
  oauthSigner: OAuthSigner;
  /** oidc-provider serving third-party apps (api/oauth/server/). */
  oauthServer: AppAuthorizationServer;
  verifyAccessToken: AccessTokenVerifier;
  revocations: RevocationList;
  loginThrottle: LoginThrottle;
  feed: SignatureFeed;
  petitionCache: PublicPetitionCache;
  petitionAnalytics: CachedPetitionAnalytics;
  petitionSearch: PetitionSearch;
  signatures: SignBatcher;
  /** Who a token's subject is, cached (core/users/directory.ts): a route that changes a user forgets it here at once. */
  users: UserDirectory;
  /** Guest signing forms, stored in batches (core/guest-signatures/submit-batcher.ts). */
  guestForms: GuestFormBatcher;
  /** Confirmation links, confirmed in batches (core/guest-signatures/confirm-batcher.ts). */
  guestConfirmations: ConfirmBatcher;
  verifyCaptcha: CaptchaVerifier;
  pageViews: PageViewCounter;
  accessCodeGuard: AccessCodeGuard;
  /** The HMAC key of network blocks (core/signatures/network-block.ts). */
  networkKey: Buffer;
  /** Rally's own login in a browser, for pages and forms only (never /v1). */
  browserSessions: BrowserSessions;
  /** The rate limits a browser form charges like the API route it stands for. */
  limits: RouteLimits;
};

/** Routes of Rally's own pages and forms: served like the others, left out of the API reference. */
const forBrowsers = (routes: AnyRouteSpec[]): AnyRouteSpec[] => routes.map((route) => ({ ...route, browser: true }));

export function declareRoutes(services: RouteServices): AnyRouteSpec[] {
  const { config, db, workflows, feed, networkKey, pageViews, browserSessions } = services;
  const moderation = { db, workflows };
  const rotation = { db, workflows, gracePeriodMs: config.keyGracePeriodMs };
  const accessTokenTtlMs = config.identity.accessTokenTtlMs;
  const httpsOnly = config.nodeEnv === 'production';
  return [
    ...createHealthRoutes({ db, temporal: workflows, readiness: services.readiness }),
    ...createReferenceRoutes(services.getDocument, config.publicUrl),
    ...createAuthRoutes({
      db,
      identity: services.identity,
      verifyAccessToken: services.verifyAccessToken,
      revocations: services.revocations,
      throttle: services.loginThrottle,
      refreshTokenTtlMs: config.identity.refreshTokenTtlMs,
      accessTokenTtlMs,
    }),
    ...createOAuthRoutes({ db, signer: services.oauthSigner, server: services.oauthServer, publicUrl: config.publicUrl, browserSessions }),
    ...createDeveloperAppRoutes({ ...rotation, accessTokenTtlMs }),
    ...createAppAuthorizationRoutes({ db, accessTokenTtlMs }),
    ...createUserActivityRoutes({ db }),
    ...createUserRoutes({ db, httpsOnly }),
    ...createExportRoutes({ db, workflows, storage: createMediaStorage(config), linkTtlMs: config.personalData.exportLinkTtlMs }),
    ...createAccountDeletionRoutes({
      db,
      workflows,
      users: services.users,
      sensitiveActionMaxAgeMs: config.sensitiveActionMaxAgeMs,
      accessTokenTtlMs,
    }),
    ...createApiKeyRoutes(rotation),
    ...createWebhookRoutes({ db, config }),
    ...createUnsubscribeRoutes({ db, config }),
    ...createNotificationRoutes({ db }),
    ...createTransitionRoutes({ db, workflows, signerDataRetentionMs: config.personalData.signerDataRetentionMs }),
    ...createSignatureRoutes({ db, signatures: services.signatures, verifyCaptcha: services.verifyCaptcha, feed, networkKey }),
    ...createCommentRoutes({ db }),
    ...createPetitionUpdateRoutes({ db }),
    // Before the petition routes: /v1/petitions/export would otherwise be read as /v1/petitions/:slug.
    ...createLeaderboardRoutes({ db }),
    ...createPetitionExportRoutes({ db }),
    ...createAnalyticsRoutes({ db, petitions: services.petitionCache, petitionAnalytics: services.petitionAnalytics }),
    ...createPetitionRoutes({
      db,
      workflows,
      accessCodeGuard: services.accessCodeGuard,
      pageViews,
      cache: services.petitionCache,
      httpsOnly,
      signerDataRetentionMs: config.personalData.signerDataRetentionMs,
    }),
    ...createMediaRoutes({ db, workflows, config }),
    ...createDecisionMakerRoutes({ db, workflows, config }),
    ...createSearchRoutes({ search: services.petitionSearch }),
    ...declareBrowserRoutes(services),
    ...createEmbedRoutes({ db, publicUrl: config.publicUrl }),
    ...createMemberRoutes({ db }),
    ...createOrganizationApiKeyRoutes(rotation),
    ...createInvitationRoutes({ db, workflows, invitationTtlMs: config.invitationTtlMs }),
    ...createOrganizationRoutes({ db }),
    ...createReportRoutes({ ...moderation, networkKey, brigadeThreshold: config.moderation.brigadeThreshold }),
    ...createAdminReportRoutes(moderation),
    ...createAdminUserRoutes({ ...moderation, users: services.users }),
    ...createAdminContentRoutes({ ...moderation, feed, signerDataRetentionMs: config.personalData.signerDataRetentionMs }),
    ...createAdminAuditRoutes({ ...moderation, networkKey }),
    ...createAdminFraudRoutes({ db }),
  ];
}

/** Rally's own pages and forms (HTML, browser sessions): served beside the API, left out of its reference. */
function declareBrowserRoutes(services: RouteServices): AnyRouteSpec[] {
  const { config, db, workflows, feed, networkKey, pageViews, browserSessions } = services;
  const accessTokenTtlMs = config.identity.accessTokenTtlMs;
  return forBrowsers([
    ...createPageRoutes({
      db,
      publicUrl: config.publicUrl,
      encryptionKey: config.encryptionKey,
      pageViews,
      sessions: browserSessions,
      signerDataRetentionMs: config.personalData.signerDataRetentionMs,
    }),
    ...createGuestSignRoutes({
      db,
      publicUrl: config.publicUrl,
      encryptionKey: config.encryptionKey,
      networkKey,
      limits: services.limits,
      guestForms: services.guestForms,
      guestConfirmations: services.guestConfirmations,
      feed,
      petitions: services.petitionCache,
    }),
    ...createGuestMailStopRoutes({ db, publicUrl: config.publicUrl, encryptionKey: config.encryptionKey }),
    ...createBrowserLoginRoutes({
      db,
      identity: services.identity,
      publicUrl: config.publicUrl,
      encryptionKey: config.encryptionKey,
      sessions: browserSessions,
      endAppSession: (ctx) => services.oauthServer.endBrowserSession(ctx),
    }),
    ...createBrowserAccountDeletionRoutes({
      db,
      publicUrl: config.publicUrl,
      sessions: browserSessions,
      workflows,
      sensitiveActionMaxAgeMs: config.sensitiveActionMaxAgeMs,
      accessTokenTtlMs,
    }),
    ...createBrowserExportRoutes({
      db,
      publicUrl: config.publicUrl,
      sessions: browserSessions,
      workflows,
      linkTtlMs: config.personalData.exportLinkTtlMs,
    }),
    ...createBrowserSignRoutes({
      db,
      publicUrl: config.publicUrl,
      sessions: browserSessions,
      signatures: services.signatures,
      feed,
      limits: services.limits,
      networkKey,
      signerDataRetentionMs: config.personalData.signerDataRetentionMs,
    }),
  ]);
}
