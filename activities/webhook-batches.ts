// First attempts of a batch of deliveries to one endpoint (workflows/webhook-delivery-batch.ts): loaded by one query, sent at once (the dispatcher sized the
// batch to the endpoint's window), and recorded in one transaction with the endpoint's new window (core/webhooks/delivery-batches.ts). Run again, it sends only
// what is still pending: a recorded delivery is not sent twice, and one already waiting for its retries is handed back again.
import { loadDeliveryContexts, nextDeliveryWindow, recordBatchAttempts, type BatchDeliveryContext } from '../core/webhooks/delivery-batches.ts';
import { finishDeliveryFailed, type AttemptRecord } from '../core/webhooks/delivery-attempts.ts';
import { openingOnce } from '../core/webhooks/signing-secrets.ts';
import { deliverySummary } from '../core/workflow-summaries.ts';
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

export function createWebhookBatchActivities(deps: WebhookActivityDependencies) {
  const { db } = deps;
  return {
    async sendDeliveryBatch(input: BatchInput): Promise<BatchOutcome> {
      const contexts = await loadDeliveryContexts(db, input.deliveryIds);
      const outcome: BatchOutcome = { delivered: 0, failed: 0, gone: input.deliveryIds.length - contexts.length, retrying: [] };
      const retryLater = (context: BatchDeliveryContext) =>
        outcome.retrying.push({
          deliveryId: context.id,
          delayMs: retryDelayMs(input.retryInitialMs, FIRST_ATTEMPT),
          petitionId: context.petition_id,
          summary: deliverySummary({ event_type: context.type, endpoint_url: context.url, petition_title: context.petition_title }),
        });
      const pending: BatchDeliveryContext[] = [];
      for (const context of contexts) {
        if (context.status === 'delivered') outcome.delivered += 1;
        else if (context.status === 'failed') outcome.failed += 1;
        else if (context.status === 'retrying') retryLater(context);
        else if (!context.is_active) {
          await finishDeliveryFailed(db, context.id, 'the endpoint was deactivated');
          outcome.failed += 1;
        } else pending.push(context);
      }
      if (pending.length === 0) return outcome;

      const attemptedAt = new Date().toISOString();
      // The batch's deliveries share their endpoint, so its secret is opened once for all of them.
      const batchDeps = { ...deps, secrets: openingOnce(deps.secrets) };
      const reports = await Promise.all(pending.map((context) => sendAttempt(batchDeps, context, input.timeoutMs)));
      const records: AttemptRecord[] = pending.map((context, index) => {
        const report = reports[index]!;
        return {
          deliveryId: context.id,
          endpointId: context.endpoint_id,
          attempt: FIRST_ATTEMPT,
          attemptedAt,
          outcome: outcomeOf(report, FIRST_ATTEMPT, input.maxAttempts),
          statusCode: report.statusCode,
          latencyMs: report.latencyMs,
          error: report.error,
          excerpt: report.excerpt,
        };
      });
      const from = pending[0]!.delivery_window;
      // A refused address says nothing about how much the receiver can take.
      const answers = reports.filter((report) => !report.refused).map((report) => ({ ok: report.error === null, latencyMs: report.latencyMs }));
      await recordBatchAttempts(
        db,
        { endpointId: input.endpointId, attempts: records, window: { from, to: nextDeliveryWindow(from, answers, deps.endpointConcurrency) } },
        deps.deactivateAfterMs,
      );
      records.forEach((record, index) =>
        observeAttempt({
          deliveryId: record.deliveryId,
          endpointId: record.endpointId,
          url: pending[index]!.url,
          attempt: FIRST_ATTEMPT,
          outcome: record.outcome,
          report: reports[index]!,
        }),
      );
      records.forEach((record, index) => {
        if (record.outcome === 'delivered') outcome.delivered += 1;
        else if (record.outcome === 'failed') outcome.failed += 1;
        else retryLater(pending[index]!);
      });
      return outcome;
    },
  };
}

export type WebhookBatchActivities = ReturnType<typeof createWebhookBatchActivities>;
