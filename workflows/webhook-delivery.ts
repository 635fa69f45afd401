// One webhook delivery: one event to one endpoint, id = the delivery id (X-Rally-Delivery-Id).
//
// Why one workflow per delivery, and not one per endpoint or per batch:
// - Per endpoint, one long-lived workflow would serialise an endpoint's deliveries (one slow or
//   retrying delivery holds up the rest behind it), grow its history with every delivery until it
//   continues-as-new, and make "show me this delivery" a query into a shared history.
// - Batched (many deliveries per activity) is fastest when everything succeeds, but one failure
//   then decides the retry timing of its neighbours, and the attempts of one delivery are spread
//   over several histories.
// - Per delivery, each delivery has its own retry schedule, a short fixed history (one activity;
//   its retries are server-side and add no events, however many attempts), shows up in the Web UI
//   under its own id, and the shape is exactly the "one workflow, one activity" unit Temporal is
//   fastest at. Its weak spot is a burst: 10,000 events for one slow endpoint would be 10,000 workflows
//   holding every activity slot for up to RALLY_WEBHOOK_TIMEOUT each, and every other endpoint would
//   queue behind them. So workflows are not started per event but drained per endpoint: delivery
//   rows wait in PostgreSQL, and the dispatcher (worker/event-dispatcher.ts) keeps at most
//   RALLY_WEBHOOK_ENDPOINT_CONCURRENCY workflows in flight per endpoint. A burst becomes a queue for
//   that endpoint alone, in the database, not a backlog in Temporal's task queue.
import { ActivityFailure, patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { AttemptInput, WebhookActivities } from '../activities/webhooks.ts';
import { RallyDeliveryOutcome } from './search-attributes.ts';

export type WebhookDeliveryInput = AttemptInput;
export type WebhookDeliveryResult = { deliveryId: string; status: 'delivered' | 'failed' | 'gone' };

// An attempt may take RALLY_WEBHOOK_TIMEOUT for the HTTP call plus a few queries around it.
const ATTEMPT_MARGIN_MS = 5_000;

const { markDeliveryFailed } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { attemptDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.timeoutMs + ATTEMPT_MARGIN_MS,
    // The activity sets each delay itself (nextRetryDelay, with jitter); these are the fallbacks for
    // attempts that never reported, such as one cut short by a worker crash.
    retry: { initialInterval: input.retryInitialMs, backoffCoefficient: 2, maximumAttempts: input.maxAttempts },
  });
  try {
    const outcome = await attemptDelivery(input);
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
