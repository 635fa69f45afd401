// First attempts of a batch of webhook deliveries to one endpoint, as they were sent before issue 45 moved them to the dispatcher (worker/first-attempts.ts).
// Nothing starts it any more; it stays registered until the last runs started by an older worker (id webhook-batch-<batch id>) have finished, and its
// recorded histories keep replaying (test/histories/).
import { ParentClosePolicy, proxyLocalActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { BatchInput, WebhookBatchActivities } from '../activities/webhook-batches.ts';
import { RallyEntityType, RallyPetitionId, RallyWebhookDeliveryId, RallyWebhookEndpointId } from './search-attributes.ts';
import { webhookDelivery } from './webhook-delivery.ts';

export type WebhookBatchInput = BatchInput & { batchId: string };
export type WebhookBatchResult = { batchId: string; delivered: number; failed: number; gone: number; retrying: number };

// The batch's attempts run side by side, each within RALLY_WEBHOOK_TIMEOUT; the rest is two queries.
const BATCH_MARGIN_MS = 10_000;

// One local activity sends them all at once and records every attempt; a local activity runs inside the
// workflow task, so a batch costs the server one workflow and one task instead of one workflow and two tasks
// per delivery. Each delivery whose attempt failed and may be retried gets its own retry workflow
// (webhookDelivery, id = the delivery id), started as an abandoned child so it lives on after the batch; the
// delivery keeps its id and its five backed-off retries, and carries the memo summary and RallyPetitionId its
// own start would have had (only a child's id and type are checked on replay, so adding them changed no
// recorded run). If the worker dies, the task is retried and the activity sends only what is still pending (at
// least once).
export async function webhookDeliveryBatch(input: WebhookBatchInput): Promise<WebhookBatchResult> {
  const { sendDeliveryBatch } = proxyLocalActivities<WebhookBatchActivities>({
    startToCloseTimeout: input.timeoutMs + BATCH_MARGIN_MS,
    // Only the batch's own queries fail it (the database away): try again until they work.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const { batchId, ...batch } = input;
  const sent = await sendDeliveryBatch(batch);
  await Promise.all(
    sent.retrying.map(({ deliveryId, delayMs, petitionId, summary }) =>
      startChild(webhookDelivery, {
        workflowId: deliveryId,
        args: [
          {
            deliveryId,
            timeoutMs: input.timeoutMs,
            retryInitialMs: input.retryInitialMs,
            maxAttempts: input.maxAttempts,
            priorAttempts: 1,
            firstRetryDelayMs: delayMs,
          },
        ],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        taskQueue: workflowInfo().taskQueue,
        ...(summary ? { memo: { summary } } : {}),
        typedSearchAttributes: [
          { key: RallyWebhookEndpointId, value: input.endpointId },
          { key: RallyWebhookDeliveryId, value: [deliveryId] },
          { key: RallyEntityType, value: 'webhook_delivery' },
          ...(petitionId ? [{ key: RallyPetitionId, value: petitionId }] : []),
        ],
      }),
    ),
  );
  return { batchId, delivered: sent.delivered, failed: sent.failed, gone: sent.gone, retrying: sent.retrying.length };
}
