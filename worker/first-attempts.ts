// Webhook first attempts, sent by the dispatcher itself (issue 45): batches claimed under a lease, posted over the worker's kept
// undici pool, their outcomes recorded with the end of the lease; a failed first attempt is handed to its webhookDelivery workflow,
// which owns attempts 2 to 6. Temporal away, first attempts go on and the hand-overs wait in PostgreSQL.
import type { DatabasePool } from 'slonik';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { withTraceCarrier } from '../platform/trace-context.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { claimDeliveryBatches, reclaimExpiredBatches, releaseLeases, type LeasedBatch } from '../core/events/dispatch-queries.ts';
import { forgetHandedOverRetries, pendingRetries, type PendingRetry } from '../core/webhooks/pending-retries.ts';
import { sendFirstAttempts } from '../activities/webhook-batches.ts';
import type { WebhookActivityDependencies } from '../activities/webhooks.ts';
import type { WorkerOrchestration } from '../orchestration/index.ts';

// Deliveries claimed per round, and per batch (one query to load, one transaction to record).
const CLAIM_LIMIT = 5_000;
// A batch larger than this gains little (its statements are already shared by many) and holds its whole window until its slowest answer.
const MAX_BATCH = 100;
const WEBHOOK_MAX_ATTEMPTS = 6; // 1 + 5 retries
// A batch's lease: its attempts' timeout, and time to record them. Past it, another round sends the batch again.
const LEASE_MARGIN_MS = 10_000;
// Expired leases are looked for at most this often (a dispatcher died mid-send: rare, and the lease already waited).
const SWEEP_INTERVAL_MS = 1_000;
const SWEEP_LIMIT = 200;
// Hand-overs per transaction, and concurrent start calls: enough to hide Temporal's round trip, few enough not to swamp it.
const HAND_OVER_LIMIT = 200;
const START_CONCURRENCY = 32;

export type FirstAttemptSender = {
  /** Claims what the endpoints' windows allow and starts sending it; says whether more may be waiting. */
  sendRound(): Promise<boolean>;
  /** Starts the retry workflows of failed first attempts; says whether more are waiting. Throws if Temporal refused one. */
  handOverRound(): Promise<boolean>;
  /**
   * Stops claiming; resolves once every batch it sent has its outcomes recorded, or after `graceMs`, giving the leases of
   * the batches still in flight back for another worker to send them at once (at least once, under the same delivery ids).
   */
  drain(graceMs: number): Promise<void>;
};

export type FirstAttemptOptions = {
  config: Config;
  db: DatabasePool;
  webhooks: WebhookActivityDependencies;
  workflows: Pick<WorkerOrchestration, 'startDeliveryRetry'>;
  log: Logger;
  /** A batch finished (room freed, perhaps retries to hand over). */
  onBatchDone(outcome: { retrying: number }): void;
};

export function createFirstAttemptSender(options: FirstAttemptOptions): FirstAttemptSender {
  const { config, db, webhooks, log } = options;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
  // What every attempt of a delivery is held to, the first here and the rest in its retry workflow.
  const attempts = { timeoutMs: config.webhookTimeoutMs, retryInitialMs: config.webhookRetryInitialMs, maxAttempts: WEBHOOK_MAX_ATTEMPTS };
  // Each batch being sent, by its id.
  const inFlight = new Map<string, Promise<void>>();
  let draining = false;
  let lastSweep = 0;

  // Tracked, not forgotten: drain() waits for it, and a crash before its outcomes commit leaves the lease to run out.
  function send(batch: LeasedBatch): void {
    const input = { endpointId: batch.endpoint_id, deliveryIds: batch.delivery_ids, ...attempts };
    const sending: Promise<void> = sendFirstAttempts(webhooks, input, batch.id)
      .then(
        (outcome) => options.onBatchDone({ retrying: outcome.retrying.length }),
        (error: unknown) =>
          log.warn('webhook batch not recorded; it is sent again when its lease runs out', {
            batch_id: batch.id,
            error: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => inFlight.delete(batch.id));
    inFlight.set(batch.id, sending);
  }

  async function sendRound(): Promise<boolean> {
    if (draining) return false;
    const ceiling = config.webhooks.endpointConcurrency;
    const claimed = await db.transaction((tx) => claimDeliveryBatches(tx, { ceiling, maxBatch: MAX_BATCH, limit: CLAIM_LIMIT, leaseMs }));
    let expired: readonly LeasedBatch[] = [];
    if (Date.now() - lastSweep >= SWEEP_INTERVAL_MS) {
      lastSweep = Date.now();
      expired = await db.transaction((tx) => reclaimExpiredBatches(tx, { leaseMs, limit: SWEEP_LIMIT }));
    }
    // A batch of this very process whose lease ran out while it was still being recorded is left to that send.
    for (const batch of [...claimed, ...expired]) if (!inFlight.has(batch.id)) send(batch);
    const deliveries = claimed.reduce((sum, batch) => sum + batch.delivery_ids.length, 0);
    return deliveries === CLAIM_LIMIT || expired.length === SWEEP_LIMIT;
  }

  const retryInput = (retry: PendingRetry) => ({
    deliveryId: retry.delivery_id,
    ...attempts,
    priorAttempts: 1,
    // What is left of the backed-off delay chosen at the first attempt (none, after a Temporal outage longer than it).
    firstRetryDelayMs: Math.max(0, Date.parse(retry.retry_at) - Date.now()),
  });

  // The start calls run while the pending rows are locked (orchestration/ gives them a deadline); a hand-over
  // Temporal refuses stays for the next round without holding up the others.
  async function handOverRound(): Promise<boolean> {
    const failures: unknown[] = [];
    const seen = await db.transaction(async (tx) => {
      const retries = await pendingRetries(tx, HAND_OVER_LIMIT);
      const accepted: string[] = [];
      for (let index = 0; index < retries.length; index += START_CONCURRENCY) {
        const slice = retries.slice(index, index + START_CONCURRENCY);
        const outcomes = await Promise.allSettled(
          // Started inside the trace of the request that caused the event, so the retries join that trace.
          slice.map((retry) => withTraceCarrier(retry.trace_context, () => options.workflows.startDeliveryRetry(retry, retryInput(retry)))),
        );
        outcomes.forEach((outcome, at) => (outcome.status === 'fulfilled' ? accepted.push(slice[at]!.delivery_id) : failures.push(outcome.reason)));
      }
      if (accepted.length > 0) await forgetHandedOverRetries(tx, accepted);
      return retries.length;
    });
    if (failures.length > 0) throw failures[0];
    return seen === HAND_OVER_LIMIT;
  }

  return {
    sendRound,
    handOverRound,
    async drain(graceMs) {
      draining = true;
      const graceOver = sleep(graceMs).then(() => 'grace over' as const);
      while (inFlight.size > 0) if ((await Promise.race([Promise.all(inFlight.values()), graceOver])) === 'grace over') break;
      if (inFlight.size === 0) return;
      const unfinished = [...inFlight.keys()];
      log.warn('webhook batches still sending after the shutdown grace; their leases are given back', { batches: unfinished.length });
      await releaseLeases(db, unfinished);
    },
  };
}
