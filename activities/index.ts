// Composes every activity group from the clients they need. The worker calls this once.
import type { DatabasePool } from 'slonik';
import { createAccountDeletionActivities } from './account-deletion.ts';
import { createApiKeyActivities } from './api-keys.ts';
import { createMaintenanceActivities } from './maintenance.ts';
import { createEventPartitionActivities } from './event-partitions.ts';
import { createPetitionActivities } from './petitions.ts';
import { createRankingActivities } from './rankings.ts';
import { createAnalyticsActivities } from './analytics.ts';
import { createFraudWatchActivities } from './fraud-watch.ts';
import { loadConfig, type Config } from '../platform/config.ts';
import { createNotificationActivities } from './notifications.ts';
import { createWebhookActivities, webhookDependencies, type WebhookActivityDependencies } from './webhooks.ts';
import { createWebhookBatchActivities } from './webhook-batches.ts';
import { createMediaActivities } from './media.ts';
import { createMediaStorage } from '../platform/storage/create-media-storage.ts';
import { createMailer } from '../platform/mailer.ts';
import { createDecisionMakerActivities, decisionMakerDependencies } from './decision-makers.ts';
import { createOAuthActivities } from './oauth.ts';
import { keyRotationPolicy } from '../core/auth/signing-key-rotation.ts';
import type { PetitionWorkflows } from '../core/petitions/lifecycle.ts';
import { createInvitationActivities, invitationDependencies } from './organization-invitations.ts';
import { createNotificationEmailActivities, notificationEmailDependencies } from './notification-emails.ts';
import { createModerationActivities, moderationDependencies } from './moderation.ts';
import { createGuestSignatureEmailActivities, guestSignatureEmailDependencies } from './guest-signature-emails.ts';
import { accountExportDependencies, createAccountExportActivities } from './account-exports.ts';
import { createSignerDataActivities } from './signer-data.ts';

/** `config` is the worker's; without it (tests) the built-in defaults apply. */
export type ActivityDependencies = {
  db: DatabasePool;
  config?: Config;
  /** For activities that move petitions through their workflows (moderation, account deletion): orchestration/'s. */
  petitionWorkflows?: PetitionWorkflows;
  /** The worker's webhook clients, shared with the dispatcher's first attempts (worker/first-attempts.ts); made here if absent. */
  webhooks?: WebhookActivityDependencies;
};

export function createActivities(deps: ActivityDependencies) {
  const config = deps.config ?? loadConfig({});
  const webhooks = deps.webhooks ?? webhookDependencies(deps.db, config);
  return {
    ...createMaintenanceActivities({ db: deps.db }),
    ...createEventPartitionActivities({ db: deps.db, retentionMs: config.personalData.eventRetentionMs }),
    ...createApiKeyActivities({ db: deps.db }),
    ...createPetitionActivities({ db: deps.db }),
    ...createRankingActivities({ db: deps.db }),
    ...createAnalyticsActivities({ db: deps.db }),
    ...createFraudWatchActivities({ db: deps.db, settings: config.fraudWatch }),
    ...createNotificationActivities({ db: deps.db }),
    // One HTTP agent and destination budget for first attempts and retries: they reach the same receivers.
    ...createWebhookActivities(webhooks),
    ...createWebhookBatchActivities(webhooks),
    ...createMediaActivities({ db: deps.db, storage: createMediaStorage(config) }),
    ...createAccountDeletionActivities({
      db: deps.db,
      storage: createMediaStorage(config),
      mailer: createMailer(config.mail),
      encryptionKey: config.encryptionKey,
      petitionWorkflows: deps.petitionWorkflows,
    }),
    ...createDecisionMakerActivities(decisionMakerDependencies(deps.db, config)),
    ...createOAuthActivities({
      db: deps.db,
      encryptionKey: config.encryptionKey,
      keyRotation: keyRotationPolicy(config.identity.accessTokenTtlMs),
      embeddedIdentityProvider: config.identity.issuer === undefined,
    }),
    ...createInvitationActivities(invitationDependencies(deps.db, config)),
    ...createNotificationEmailActivities(notificationEmailDependencies(deps.db, config)),
    ...createModerationActivities(moderationDependencies(deps.db, config, deps.petitionWorkflows)),
    ...createGuestSignatureEmailActivities(guestSignatureEmailDependencies(deps.db, config)),
    ...createAccountExportActivities(accountExportDependencies(deps.db, config)),
    ...createSignerDataActivities({ db: deps.db, retentionMs: config.personalData.signerDataRetentionMs }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
