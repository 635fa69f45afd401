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
import { RallyApiKeyId, RallyMediaId, RallyOrganizationId } from '../workflows/search-attributes.ts';
import type { Temporal } from './client.ts';
import { onceFor } from './start-once.ts';
import { bestEffort, orUnavailable } from './unavailable.ts';

export function accountWorkflows(temporal: Temporal): KeyRotationWorkflows & ClientSecretRotationWorkflows & InvitationWorkflows & MediaWorkflows {
  return {
    async startKeyRotation(keyId, gracePeriodMs) {
      const tags = [{ key: RallyApiKeyId, value: keyId }];
      const once = onceFor(temporal, apiKeyRotationWorkflowId(keyId), 'api_key', tags);
      await orUnavailable(temporal.client.workflow.start(apiKeyRotation, { ...once, args: [{ keyId, gracePeriodMs }] }), 'nothing was changed');
    },

    async startClientSecretRotation(clientId, rotatedAtMs, gracePeriodMs) {
      const once = onceFor(temporal, oauthSecretRotationWorkflowId(clientId, rotatedAtMs), 'oauth_client');
      await orUnavailable(temporal.client.workflow.start(oauthSecretRotation, { ...once, args: [{ clientId, gracePeriodMs }] }), 'nothing was changed');
    },

    async cancelKeyRotation(keyId) {
      await bestEffort(temporal.client.workflow.getHandle(apiKeyRotationWorkflowId(keyId)).cancel());
    },

    async startInvitation(invitation) {
      const tags = [{ key: RallyOrganizationId, value: invitation.organizationId }];
      const once = onceFor(temporal, organizationInvitationWorkflowId(invitation.invitationId), 'organization_invitation', tags);
      await orUnavailable(temporal.client.workflow.start(organizationInvitation, { ...once, args: [invitation] }), 'nothing was changed');
    },

    async invitationAccepted(invitationId) {
      await bestEffort(temporal.client.workflow.getHandle(organizationInvitationWorkflowId(invitationId)).signal(invitationAcceptedSignal));
    },

    async processMedia(mediaId) {
      const tags = [{ key: RallyMediaId, value: mediaId }];
      const once = onceFor(temporal, mediaProcessingWorkflowId(mediaId), 'media', tags);
      await orUnavailable(temporal.client.workflow.start(mediaProcessing, { ...once, args: [{ mediaId }] }), 'nothing was confirmed');
    },
  };
}
