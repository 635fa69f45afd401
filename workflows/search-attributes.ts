// Typed keys for the custom search attributes declared in temporal.yaml, so operators can find a
// resource's workflows in the Web UI (`RallyApiKeyId = "…"`).
// test/scripts/temporal-settings.unit.test.ts keeps this list and temporal.yaml in step.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RallyPetitionId = defineSearchAttributeKey('RallyPetitionId', SearchAttributeType.KEYWORD);
export const RallyApiKeyId = defineSearchAttributeKey('RallyApiKeyId', SearchAttributeType.KEYWORD);
export const RallyWebhookEndpointId = defineSearchAttributeKey('RallyWebhookEndpointId', SearchAttributeType.KEYWORD);
export const RallyWebhookDeliveryId = defineSearchAttributeKey('RallyWebhookDeliveryId', SearchAttributeType.KEYWORD_LIST);
export const RallyEntityType = defineSearchAttributeKey('RallyEntityType', SearchAttributeType.KEYWORD);
export const RallyMediaId = defineSearchAttributeKey('RallyMediaId', SearchAttributeType.KEYWORD);
export const RallyOrganizationId = defineSearchAttributeKey('RallyOrganizationId', SearchAttributeType.KEYWORD);
export const RallyUserId = defineSearchAttributeKey('RallyUserId', SearchAttributeType.KEYWORD);
export const RallyModerationTarget = defineSearchAttributeKey('RallyModerationTarget', SearchAttributeType.KEYWORD);
export const RallyModerationState = defineSearchAttributeKey('RallyModerationState', SearchAttributeType.KEYWORD);
export const RallyDeliveryOutcome = defineSearchAttributeKey('RallyDeliveryOutcome', SearchAttributeType.KEYWORD);

export const ALL_SEARCH_ATTRIBUTES = [
  RallyPetitionId,
  RallyApiKeyId,
  RallyWebhookEndpointId,
  RallyWebhookDeliveryId,
  RallyEntityType,
  RallyMediaId,
  RallyOrganizationId,
  RallyUserId,
  RallyModerationTarget,
  RallyModerationState,
  RallyDeliveryOutcome,
];
