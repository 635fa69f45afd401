// Every workflow the worker runs. The worker bundles this file; tests and clients import names
// (and the signals, queries and updates exported beside each workflow) from here.
export { purgeIdempotencyKeys } from './purge-idempotency-keys.ts';
export { rollEventPartitions } from './roll-event-partitions.ts';
export { apiKeyRotation, apiKeyRotationWorkflowId, rotationStatusQuery } from './api-key-rotation.ts';
export { oauthSecretRotation, oauthSecretRotationWorkflowId } from './oauth-secret-rotation.ts';
export {
  petitionLifecycle,
  petitionWorkflowId,
  publishUpdate,
  closeUpdate,
  victoryUpdate,
  petitionDeletedSignal,
  statusQuery,
  INVALID_TRANSITION,
} from './petition-lifecycle.ts';
export { holdForReviewUpdate, releaseFromReviewUpdate, adminCloseUpdate } from './petition-lifecycle.ts';
export { moderateTarget, moderationWorkflowId, reportedSignal, decideUpdate } from './moderation.ts';
export { userSuspension } from './user-suspension.ts';
export { deliverWarningEmail } from './warning-email.ts';
export { invalidateSignatures } from './signature-invalidation.ts';
export { webhookDelivery } from './webhook-delivery.ts';
export { webhookDeliveryBatch } from './webhook-delivery-batch.ts';
export { notifyPetitionSigners } from './signer-notifications.ts';
export { mediaProcessing, mediaProcessingWorkflowId } from './media-processing.ts';
export { inviteDecisionMakers, decisionMakerInvitationWorkflowId } from './decision-maker-invitations.ts';
export { responseTokenExpiry, responseTokenWorkflowId, respondedSignal } from './response-token.ts';
export { refreshPetitionRankings } from './refresh-petition-rankings.ts';
export { foldSignatureRollups } from './fold-signature-rollups.ts';
export { fraudWatch } from './fraud-watch.ts';
export { purgeOAuthArtifacts } from './purge-oauth-artifacts.ts';
export { rotateOAuthSigningKeys } from './rotate-oauth-signing-keys.ts';
export { purgeAbandonedUploads } from './purge-abandoned-uploads.ts';
export { organizationInvitation, organizationInvitationWorkflowId, invitationAcceptedSignal } from './organization-invitation.ts';
export { notificationEmailDigests, notificationEmailDigestsWorkflowId, notificationsPendingSignal } from './notification-email-digests.ts';
export { guestSignatureEmails, guestSignatureEmailsWorkflowId, guestSignatureEmailsDueSignal } from './guest-signature-emails.ts';
export { accountExport, accountExportWorkflowId } from './account-export.ts';
export { forgetSignerData } from './forget-signer-data.ts';
// No longer started; registered so that runs started by an earlier release finish.
export { notificationEmails } from './notification-emails.ts';
export { milestoneReachedSignal } from './petition-milestones.ts';
export { accountDeletion, accountDeletionWorkflowId, deletionProgressQuery } from './account-deletion.ts';
