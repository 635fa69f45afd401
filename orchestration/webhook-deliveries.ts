// The outbox dispatcher's webhook starts (worker/event-dispatcher.ts): one webhookDeliveryBatch
// workflow per claimed batch, id webhook-batch-<batch id>. A start repeated after a crash finds the
// first one, so "already started" counts as accepted.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { DeliveryBatch } from '../core/events/dispatch-queries.ts';
import { webhookBatchWorkflowId, webhookDeliveryBatch } from '../workflows/index.ts';
import { RallyEntityType, RallyPetitionId, RallyWebhookDeliveryId, RallyWebhookEndpointId } from '../workflows/search-attributes.ts';
import type { WebhookBatchInput } from '../workflows/webhook-delivery-batch.ts';
import { promptly, type Temporal } from './client.ts';
import { deliveryBatchSummary } from '../core/workflow-summaries.ts';

export function webhookDeliveryWorkflows(temporal: Temporal) {
  return {
    /** Resolves once Temporal holds the batch's workflow; the dispatcher then forgets the batch row. */
    async startDeliveryBatch(batch: DeliveryBatch, input: WebhookBatchInput): Promise<void> {
      await promptly(temporal, () =>
        temporal.client.workflow.start(webhookDeliveryBatch, {
          workflowId: webhookBatchWorkflowId(batch.id),
          taskQueue: temporal.taskQueue,
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          // The server hands the first task straight back to this worker (a client on the worker's own connection).
          requestEagerStart: true,
          memo: { summary: deliveryBatchSummary(batch) },
          typedSearchAttributes: [
            { key: RallyWebhookEndpointId, value: batch.endpoint_id },
            { key: RallyWebhookDeliveryId, value: batch.delivery_ids },
            { key: RallyEntityType, value: 'webhook_delivery_batch' },
            ...(batch.petition_id ? [{ key: RallyPetitionId, value: batch.petition_id }] : []),
          ],
        }),
      ).catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
    },
  };
}
