// The words Rally uses everywhere, written once: petition states, who triggered an event, event and
// notification names, and the failure types Temporal histories carry. No I/O, so workflows/ import it
// too; no other module spells one of these names as a string literal of its own.

export const PETITION_STATUSES = ['draft', 'active', 'closed', 'victory', 'under_review'] as const;
export type PetitionStatus = (typeof PETITION_STATUSES)[number];
/** Not yet (or no longer) out in the open: only its managers and platform admins may see these. */
export const UNPUBLISHED_PETITION_STATUSES = ['draft', 'under_review'] as const satisfies readonly PetitionStatus[];
/** A petition that is done: signer-data retention counts from its close (RALLY_SIGNER_DATA_RETENTION). */
export const ENDED_PETITION_STATUSES = ['closed', 'victory'] as const satisfies readonly PetitionStatus[];
/** Published petitions: everyone may read them (public lists show the public ones). */
export const PUBLISHED_PETITION_STATUSES = PETITION_STATUSES.filter(
  (status): status is Exclude<PetitionStatus, (typeof UNPUBLISHED_PETITION_STATUSES)[number]> =>
    !(UNPUBLISHED_PETITION_STATUSES as readonly string[]).includes(status),
);
export type PublishedPetitionStatus = (typeof PUBLISHED_PETITION_STATUSES)[number];

export const PETITION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export type PetitionVisibility = (typeof PETITION_VISIBILITIES)[number];

/** Who may see who signed a petition: anyone, its creator only, or nobody (the count alone). */
export const SIGNATURE_PRIVACIES = ['public', 'creator_only', 'count_only'] as const;
export type SignaturePrivacy = (typeof SIGNATURE_PRIVACIES)[number];

/** Who caused an event (`triggered_by` on webhooks). */
export const ACTOR_TYPES = ['user', 'api_key', 'system', 'decision_maker', 'oauth_app'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** What a user may grant an OAuth app (spec: Authentication 5); core/auth/scopes.ts says what each allows. */
export const OAUTH_SCOPES = ['read:petitions', 'write:petitions', 'read:signatures', 'write:signatures', 'read:profile', 'write:profile'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** The claim of an app access token that names its grant, refused with it when the grant ends (core/oauth/grants.ts). */
export const GRANT_ID_CLAIM = 'grant_id';

/** Outbox events, which are also the webhook event names integrators subscribe to. */
export const EVENT_TYPES = [
  'petition.created',
  'petition.updated',
  'petition.published',
  'petition.closed',
  'petition.victory',
  'signature.created',
  'signature.milestone',
  'signature.removed',
  'update.created',
  'response.submitted',
  'response.published',
  // Emitted when an organization's tier is upgraded (payment itself happens outside Rally).
  'payment.completed',
  // Emitted by the fraud watch when a signing rate jumps past its baseline; platform-wide endpoints only.
  'fraud.suspected',
  // Emitted when many reports against one target come from one network block; platform-wide endpoints only.
  'report.brigading_suspected',
  // Emitted when account deletion strips a person's signatures, one per petition (issue 46). Opt-in.
  'signature.anonymized',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Events an endpoint gets only by naming them: left out of every "all events" default (rally webhooks listen). */
export const OPT_IN_EVENT_TYPES = ['signature.anonymized'] as const satisfies readonly EventType[];
/** What "all events" means where a tool subscribes on someone's behalf. */
export const DEFAULT_EVENT_TYPES = EVENT_TYPES.filter((type) => !(OPT_IN_EVENT_TYPES as readonly string[]).includes(type));

/** Roles in an organization; only admin and member can be given by add or role change. */
export const ORGANIZATION_ROLES = ['owner', 'admin', 'member'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

/** Organization tiers, cheapest first; their limits live in the organization_tiers table. */
export const ORGANIZATION_TIERS = ['free', 'pro', 'enterprise'] as const;
export type OrganizationTier = (typeof ORGANIZATION_TIERS)[number];

/** The notification types users can switch off in GET/PATCH /v1/notifications/preferences. */
export const NOTIFICATION_TYPES = [
  'petition.milestone',
  'petition.victory',
  'comment.reply',
  'response.submitted',
  'response.published',
  'webhook.deactivated',
  'account.session_revoked',
  // To an account's owner: wrong passwords for its email went past RALLY_LOGIN_FAILURE_LIMIT (core/auth/login-throttle.ts).
  'account.login_throttled',
  'moderation.warning',
  // To platform administrators, beside the fraud.suspected event.
  'moderation.fraud_suspected',
  // To platform administrators, beside the report.brigading_suspected event of the same name.
  'report.brigading_suspected',
  // To an organization's owner and admins: someone who created live organization keys left or is no longer an admin.
  'organization.key_creator_left',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/**
 * ApplicationFailure types, as they appear in workflow histories. Recorded histories hold these
 * exact strings: change none of them.
 */
export const FAILURE_TYPES = {
  petitionNotFound: 'PetitionNotFound',
  invalidTransition: 'InvalidTransition',
  imageRejected: 'ImageRejected',
  mailRejected: 'MailRejected',
  invitationRefused: 'InvitationRefused',
  webhookAttemptFailed: 'WebhookAttemptFailed',
  webhookDeliveryFailed: 'WebhookDeliveryFailed',
  webhookEndpointInactive: 'WebhookEndpointInactive',
  webhookAddressRefused: 'WebhookAddressRefused',
  moderationTargetGone: 'ModerationTargetGone',
} as const;

/** What reports are about, why they are made, where they stand, and what a reviewer can do. */
export const REPORT_TARGET_TYPES = ['petition', 'comment', 'user'] as const;
export type ReportTargetType = (typeof REPORT_TARGET_TYPES)[number];
export const REPORT_REASONS = ['spam', 'harassment', 'hate_speech', 'misinformation', 'other'] as const;
export const REPORT_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const MODERATION_ACTIONS = ['dismiss', 'hide', 'remove', 'suspend_user', 'warn_user', 'restore'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/** What the fraud watch counts signing rates of: a petition, a signer's /24 or /64 (keyed hash), an email domain. */
/** What fraud.suspected names: a signing rate jump (the first three), or a petition's share of flagged signatures. */
export const FRAUD_SUBJECT_TYPES = ['petition', 'network_block', 'email_domain', 'flagged_share'] as const;
export type FraudSubjectType = (typeof FRAUD_SUBJECT_TYPES)[number];

/** The audit log's action names (GET /v1/admin/audit-logs?action=…). */
export const AUDIT_ACTIONS = [
  'report.created',
  'report.actioned',
  'report.brigading_suspected',
  'moderation.auto_hidden',
  'comment.hidden',
  'comment.unhidden',
  'comment.removed',
  'petition.under_review',
  'petition.restored',
  'petition.closed_by_admin',
  'user.flagged',
  'user.unflagged',
  'user.suspended',
  'user.unsuspended',
  'user.role_changed',
  'user.warned',
  'user.deleted',
  'signature.removed_by_admin',
  'signatures.invalidated',
  'signatures.flags_cleared',
  'signing_list.entry_added',
  'signing_list.entry_removed',
  // Beside the organization.key_creator_left notification: whose keys were left behind, and which.
  'organization.key_creator_left',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * A guest signature (signed from the page or the widget without an account) from its form to its end:
 * waiting for the click on its emailed link, confirmed (a signature now), found already signed when its
 * email went out (the email says so; nothing to confirm), or expired unconfirmed.
 */
export const GUEST_SIGNATURE_STATUSES = ['pending', 'confirmed', 'already_signed', 'expired'] as const;
export type GuestSignatureStatus = (typeof GUEST_SIGNATURE_STATUSES)[number];

/** The identity issuer of a user recorded from a confirmed guest signature: no password, no provider account yet. */
export const GUEST_IDENTITY_ISSUER = 'rally:guest';

/** What deleting an account erases, in order (core/account-deletion/erasure.ts; workflows/account-deletion.ts runs them). */
export const ERASURE_STEPS = ['signatures', 'comments', 'authorship', 'belongings', 'media', 'events'] as const;
export type ErasureStep = (typeof ERASURE_STEPS)[number];
