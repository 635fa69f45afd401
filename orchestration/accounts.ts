// Workflows started for accounts and their resources, behind the ports core/ declares: the end of a rotated API key's grace window, an organization
// invitation's delivery and expiry, and an uploaded image's processing. Each is started once per resource (REJECT_DUPLICATE) and a failed start is the one 503,
// so the transaction that started it rolls back.
import type { KeyRotationWorkflows } from '../core/api-keys/rotation.ts';
import type { ClientSecretRotationWorkflows } from '../core/oauth/developer-apps.ts';
import type { MediaWorkflows } from '../core/media/confirm.ts';
import type { InvitationWorkflows } from '../core/organizations/invitations.ts';
import {
  apiKeyRotation,
  apiKeyRotationWorkflowId,
  invitationAcceptedSignal,
  mediaProcessing,
  mediaProcessingWorkflowId,
  oauthSecretRotation,
  oauthSecretRotationWorkflowId,
  organizationInvitation,
  organizationInvitationWorkflowId,
} from '../workflows/index.ts';
import { RallyApiKeyId, RallyEntityType, RallyMediaId, RallyOrganizationId } from '../workflows/search-attributes.ts';
import type { Temporal } from './client.ts';
import { bestEffort, orUnavailable } from './unavailable.ts';

export function accountWorkflows(temporal: Temporal): KeyRotationWorkflows & ClientSecretRotationWorkflows & InvitationWorkflows & MediaWorkflows {
  return {
    async startKeyRotation(keyId, gracePeriodMs) {
      await orUnavailable(
        temporal.client.workflow.start(apiKeyRotation, {
          workflowId: apiKeyRotationWorkflowId(keyId),
          taskQueue: temporal.taskQueue,
          args: [{ keyId, gracePeriodMs }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: RallyApiKeyId, value: keyId },
            { key: RallyEntityType, value: 'api_key' },
          ],
        }),
        'nothing was changed',
      );
    },

    async startClientSecretRotation(clientId, rotatedAtMs, gracePeriodMs) {
      await orUnavailable(
        temporal.client.workflow.start(oauthSecretRotation, {
          workflowId: oauthSecretRotationWorkflowId(clientId, rotatedAtMs),
          taskQueue: temporal.taskQueue,
          args: [{ clientId, gracePeriodMs }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [{ key: RallyEntityType, value: 'oauth_client' }],
        }),
        'nothing was changed',
      );
    },

    async cancelKeyRotation(keyId) {
      await bestEffort(temporal.client.workflow.getHandle(apiKeyRotationWorkflowId(keyId)).cancel());
    },

    async startInvitation(invitation) {
      await orUnavailable(
        temporal.client.workflow.start(organizationInvitation, {
          workflowId: organizationInvitationWorkflowId(invitation.invitationId),
          taskQueue: temporal.taskQueue,
          args: [invitation],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: RallyOrganizationId, value: invitation.organizationId },
            { key: RallyEntityType, value: 'organization_invitation' },
          ],
        }),
        'nothing was changed',
      );
    },

    async invitationAccepted(invitationId) {
      await bestEffort(temporal.client.workflow.getHandle(organizationInvitationWorkflowId(invitationId)).signal(invitationAcceptedSignal));
    },

    async processMedia(mediaId) {
      await orUnavailable(
        temporal.client.workflow.start(mediaProcessing, {
          workflowId: mediaProcessingWorkflowId(mediaId),
          taskQueue: temporal.taskQueue,
          args: [{ mediaId }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: RallyMediaId, value: mediaId },
            { key: RallyEntityType, value: 'media' },
          ],
        }),
        'nothing was confirmed',
      );
    },
  };
}
