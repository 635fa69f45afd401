// The retries of one webhook delivery (workflow id = the delivery id, X-Rally-Delivery-Id, to find it in the Web UI), started only when its first attempt, sent
// in a batch (webhook-delivery-batch.ts), failed: at signing speed, one workflow per delivery is more than a Temporal server starts in a second, while most
// first attempts succeed.
import { ActivityFailure, patched, proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { AttemptInput, WebhookActivities } from '../activities/webhooks.ts';
import { RallyDeliveryOutcome } from './search-attributes.ts';

/** `firstRetryDelayMs`: when priorAttempts > 0, how long to wait before the next attempt (chosen, with jitter, by the batch). */
export type WebhookDeliveryInput = AttemptInput & { firstRetryDelayMs?: number };
export type WebhookDeliveryResult = { deliveryId: string; status: 'delivered' | 'failed' | 'gone' };

// Runs recorded before batches existed made the first attempt here too (no priorAttempts): this `patched`
// marker keeps their histories replaying as recorded.
export const RETRIES_AFTER_BATCH_PATCH = 'webhook-retries-after-batch';

// An attempt may take RALLY_WEBHOOK_TIMEOUT for the HTTP call plus a few queries around it.
const ATTEMPT_MARGIN_MS = 5_000;

const { markDeliveryFailed } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Owns the rest of the delivery's life: its own backed-off retry schedule, a short fixed history (one activity
// whose retries are server-side and add no events), up to RALLY_WEBHOOK_ENDPOINT_CONCURRENCY deliveries of an
// endpoint in flight at once, counting these (see core/events/dispatch-queries.ts).
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const priorAttempts = patched(RETRIES_AFTER_BATCH_PATCH) ? (input.priorAttempts ?? 0) : 0;
  const { attemptDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.timeoutMs + ATTEMPT_MARGIN_MS,
    // The activity sets each delay itself (nextRetryDelay, with jitter); these are the fallbacks for
    // attempts that never reported, such as one cut short by a worker crash.
    retry: { initialInterval: input.retryInitialMs, backoffCoefficient: 2, maximumAttempts: Math.max(1, input.maxAttempts - priorAttempts) },
  });
  try {
    // A durable timer: the wait between the batch's attempt and this one survives restarts.
    if (priorAttempts > 0 && input.firstRetryDelayMs) await sleep(input.firstRetryDelayMs);
    const outcome = await attemptDelivery({ ...input, priorAttempts });
    return finished({ deliveryId: input.deliveryId, status: outcome });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // Usually already recorded by the last attempt; this covers attempts lost to crashes and timeouts.
    await markDeliveryFailed({ deliveryId: input.deliveryId, reason: error.cause?.message ?? error.message });
    return finished({ deliveryId: input.deliveryId, status: 'failed' });
  }
}

/** Added after histories were recorded without it; those replay without the search attribute. */
export const DELIVERY_OUTCOME_PATCH = 'delivery-outcome-search-attribute';

// The outcome becomes searchable in the Web UI: RallyWebhookEndpointId = "…" AND RallyDeliveryOutcome = "failed".
function finished(result: WebhookDeliveryResult): WebhookDeliveryResult {
  if (patched(DELIVERY_OUTCOME_PATCH)) upsertSearchAttributes([{ key: RallyDeliveryOutcome, value: result.status }]);
  return result;
}
