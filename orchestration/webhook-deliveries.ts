// The dispatcher's hand-over of a failed first attempt (worker/first-attempts.ts): one webhookDelivery workflow, id = the delivery id,
// owning attempts 2 to 6 on durable timers. A start repeated after a crash, or for a delivery whose workflow already runs, finds the
// first one, so "already started" counts as accepted.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { PendingRetry } from '../core/webhooks/pending-retries.ts';
import { deliverySummary } from '../core/workflow-summaries.ts';
import { webhookDelivery } from '../workflows/index.ts';
import { RallyEntityType, RallyPetitionId, RallyWebhookDeliveryId, RallyWebhookEndpointId } from '../workflows/search-attributes.ts';
import type { WebhookDeliveryInput } from '../workflows/webhook-delivery.ts';
import { promptly, type Temporal } from './client.ts';

export function webhookDeliveryWorkflows(temporal: Temporal) {
  return {
    /** Resolves once Temporal holds the delivery's retry workflow; the dispatcher then forgets the pending row. */
    async startDeliveryRetry(retry: PendingRetry, input: WebhookDeliveryInput): Promise<void> {
      await promptly(temporal, () =>
        temporal.client.workflow.start(webhookDelivery, {
          workflowId: retry.delivery_id,
          taskQueue: temporal.taskQueue,
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          memo: { summary: deliverySummary(retry) },
          typedSearchAttributes: [
            { key: RallyWebhookEndpointId, value: retry.endpoint_id },
            { key: RallyWebhookDeliveryId, value: [retry.delivery_id] },
            { key: RallyEntityType, value: 'webhook_delivery' },
            ...(retry.petition_id ? [{ key: RallyPetitionId, value: retry.petition_id }] : []),
          ],
        }),
      ).catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
    },
  };
}
