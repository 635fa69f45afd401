// First attempts of a batch of deliveries to one endpoint, sent by the dispatcher (worker/first-attempts.ts) and by the batch workflow that did it before:
// loaded by one query, sent at once (the dispatcher sized the batch to the endpoint's window), and recorded in one transaction with the endpoint's new window
// (core/webhooks/delivery-batches.ts). Run again, it sends only what is still pending: a recorded delivery is not sent twice.
import {
  loadDeliveryContexts,
  nextDeliveryWindow,
  recordBatchAttempts,
  type BatchDeliveryContext,
  type RetryHandOver,
} from '../core/webhooks/delivery-batches.ts';
import { finishDeliveryFailed, type AttemptRecord } from '../core/webhooks/delivery-attempts.ts';
import { openingOnce } from '../core/webhooks/signing-secrets.ts';
import { deliverySummary } from '../core/workflow-summaries.ts';
import { withTraceCarrier } from '../platform/trace-context.ts';
import { observeAttempt, outcomeOf, retryDelayMs, sendAttempt, type WebhookActivityDependencies } from './webhooks.ts';

export type BatchInput = { endpointId: string; deliveryIds: string[]; timeoutMs: number; retryInitialMs: number; maxAttempts: number };
/**
 * `petitionId` and `summary` are absent from outcomes recorded in histories before they existed.
 * Deliveries whose first attempt failed and may be retried come back with the delay before their second
 * attempt, their petition and a summary for the Web UI: the workflow starts one retry workflow for each.
 */
export type RetryLater = { deliveryId: string; delayMs: number; petitionId?: string | null; summary?: string };
export type BatchOutcome = { delivered: number; failed: number; gone: number; retrying: RetryLater[] };

const FIRST_ATTEMPT = 1;

/**
 * Sends a batch's first attempts and records them. With `leasedBatchId` (the dispatcher's batches), the batch row goes with
 * the outcomes and each delivery to retry waits in webhook_retries_pending for its workflow; without it (the batch workflow),
 * the caller starts the retry workflows from `retrying`.
 */
export async function sendFirstAttempts(deps: WebhookActivityDependencies, input: BatchInput, leasedBatchId?: string): Promise<BatchOutcome> {
  const { db } = deps;
  const contexts = await loadDeliveryContexts(db, input.deliveryIds);
  const outcome: BatchOutcome = { delivered: 0, failed: 0, gone: input.deliveryIds.length - contexts.length, retrying: [] };
  const retries: RetryHandOver[] = [];
  const retryLater = (context: BatchDeliveryContext, attemptedAt: number) => {
    const delayMs = retryDelayMs(input.retryInitialMs, FIRST_ATTEMPT);
    retries.push({ deliveryId: context.id, retryAt: new Date(attemptedAt + delayMs).toISOString(), traceContext: context.trace_context });
    outcome.retrying.push({
      deliveryId: context.id,
      delayMs,
      petitionId: context.petition_id,
      summary: deliverySummary({ event_type: context.type, endpoint_url: context.url, petition_title: context.petition_title }),
    });
  };
  const pending: BatchDeliveryContext[] = [];
  for (const context of contexts) {
    if (context.status === 'delivered') outcome.delivered += 1;
    else if (context.status === 'failed') outcome.failed += 1;
    else if (context.status === 'retrying') retryLater(context, Date.now());
    else if (!context.is_active) {
      await finishDeliveryFailed(db, context.id, 'the endpoint was deactivated');
      outcome.failed += 1;
    } else pending.push(context);
  }
  const lease = leasedBatchId === undefined ? undefined : { batchId: leasedBatchId, retries };
  if (pending.length === 0) {
    await recordBatchAttempts(db, { endpointId: input.endpointId, attempts: [], window: { from: 0, to: 0 }, lease }, deps.deactivateAfterMs);
    return outcome;
  }

  const attemptedAt = new Date();
  // The batch's deliveries share their endpoint, so its secret is opened once for all of them.
  const batchDeps = { ...deps, secrets: openingOnce(deps.secrets) };
  // Each attempt (its HTTP span and its log line) joins the trace of the request that caused its event.
  const reports = await Promise.all(pending.map((context) => withTraceCarrier(context.trace_context, () => sendAttempt(batchDeps, context, input.timeoutMs))));
  const records: AttemptRecord[] = pending.map((context, index) => {
    const report = reports[index]!;
    return {
      deliveryId: context.id,
      endpointId: context.endpoint_id,
      attempt: FIRST_ATTEMPT,
      attemptedAt: attemptedAt.toISOString(),
      outcome: outcomeOf(report, FIRST_ATTEMPT, input.maxAttempts),
      statusCode: report.statusCode,
      latencyMs: report.latencyMs,
      error: report.error,
      excerpt: report.excerpt,
    };
  });
  records.forEach((record, index) => {
    if (record.outcome === 'delivered') outcome.delivered += 1;
    else if (record.outcome === 'failed') outcome.failed += 1;
    else retryLater(pending[index]!, attemptedAt.getTime());
  });
  const from = pending[0]!.delivery_window;
  // A refused address says nothing about how much the receiver can take.
  const answers = reports.filter((report) => !report.refused).map((report) => ({ ok: report.error === null, latencyMs: report.latencyMs }));
  const window = { from, to: nextDeliveryWindow(from, answers, deps.endpointConcurrency) };
  await recordBatchAttempts(db, { endpointId: input.endpointId, attempts: records, window, lease }, deps.deactivateAfterMs);
  records.forEach((record, index) =>
    withTraceCarrier(pending[index]!.trace_context, () =>
      observeAttempt({
        deliveryId: record.deliveryId,
        endpointId: record.endpointId,
        url: pending[index]!.url,
        attempt: FIRST_ATTEMPT,
        outcome: record.outcome,
        report: reports[index]!,
      }),
    ),
  );
  return outcome;
}

export function createWebhookBatchActivities(deps: WebhookActivityDependencies) {
  return {
    sendDeliveryBatch: (input: BatchInput): Promise<BatchOutcome> => sendFirstAttempts(deps, input),
  };
}

export type WebhookBatchActivities = ReturnType<typeof createWebhookBatchActivities>;
