// SQL behind a batch of first attempts (activities/webhook-batches.ts): what to send, in one query, and recording every attempt of the batch in one
// transaction, with the same effects recordAttempt has for one (attempt rows, delivery statuses, the endpoint's failure streak and deactivation) plus the
// endpoint's new delivery window, and for a leased batch the end of its lease and the retries it hands to Temporal.
import type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { EVENTS_CHANNEL } from '../events/record-event.ts';
import { sql, unnestRows } from '../../db/sql.ts';
import { DeliveryContext, deactivateIfFailingTooLong, ONLY_DELIVERIES_STILL_THERE, type AttemptRecord } from './delivery-attempts.ts';

// The petition and its title name a retry workflow in the Web UI (memo summary, RallyPetitionId).
export const BatchDeliveryContext = DeliveryContext.extend({
  attempt_count: z.number(),
  delivery_window: z.number(),
  petition_id: z.string().nullable(),
  petition_title: z.string().nullable(),
  /** The trace of the request that caused the event (first deliveries only; a replay is a trace of its own). */
  trace_context: z.record(z.string(), z.string()).nullable(),
});
export type BatchDeliveryContext = z.infer<typeof BatchDeliveryContext>;

/** The deliveries that still exist (an endpoint deleted takes its deliveries with it), in the order given. */
export function loadDeliveryContexts(db: CommonQueryMethods, deliveryIds: readonly string[]) {
  return db.any(sql.type(BatchDeliveryContext)`
    SELECT d.id, d.status, d.attempt_count, d.endpoint_id, ep.url, ep.is_active, ep.delivery_window, ep.secret_ciphertext,
           CASE WHEN ep.previous_secret_expires_at > now() THEN ep.previous_secret_ciphertext END AS previous_secret_ciphertext,
           e.id AS event_id, e.type, e.occurred_at, e.actor_type, e.actor_id, e.data, e.petition_id, p.title AS petition_title,
           CASE WHEN d.cause = 'event' THEN e.trace_context END AS trace_context
    FROM unnest(${sql.array([...deliveryIds], 'uuid')}) WITH ORDINALITY AS wanted(id, position)
    JOIN webhook_deliveries d ON d.id = wanted.id
    JOIN webhook_endpoints ep ON ep.id = d.endpoint_id
    JOIN events e ON e.id = d.event_id
    LEFT JOIN petitions p ON p.id = e.petition_id
    ORDER BY wanted.position
  `);
}

/** A failed first attempt's delivery, to be handed to its retry workflow, due at `retryAt`. */
export type RetryHandOver = { deliveryId: string; retryAt: string; traceContext: Record<string, string> | null };

export type BatchRecord = {
  endpointId: string;
  attempts: readonly AttemptRecord[];
  window: { from: number; to: number };
  /** A batch the dispatcher leased (worker/first-attempts.ts): its row goes, and its retries wait in webhook_retries_pending. */
  lease?: { batchId: string; retries: readonly RetryHandOver[] };
};

export async function recordBatchAttempts(db: DatabasePool, batch: BatchRecord, deactivateAfterMs: number): Promise<void> {
  const { attempts, lease } = batch;
  if (attempts.length === 0 && !lease) return;
  await db.transaction(async (tx) => {
    if (attempts.length > 0) await recordOutcomes(tx, batch, deactivateAfterMs);
    if (lease) await endLease(tx, lease);
  });
}

async function recordOutcomes(tx: DatabaseTransactionConnection, batch: BatchRecord, deactivateAfterMs: number): Promise<void> {
  const { attempts } = batch;
  // The endpoint row first, as recordAttempt does (the dispatcher locks endpoints before deliveries),
  // and only when something changes, so a healthy busy endpoint is not a hot row.
  const anyDelivered = attempts.some((record) => record.outcome === 'delivered');
  const failingSince = anyDelivered ? null : attempts[0]!.attemptedAt;
  await tx.query(sql.typeAlias('void')`
      UPDATE webhook_endpoints
      SET failing_since = CASE WHEN ${anyDelivered} THEN NULL ELSE COALESCE(failing_since, ${failingSince}::timestamptz) END,
          delivery_window = ${batch.window.to}
      WHERE id = ${batch.endpointId}
        AND (delivery_window <> ${batch.window.to} OR (${anyDelivered} AND failing_since IS NOT NULL) OR (NOT ${anyDelivered} AND failing_since IS NULL))
    `);
  // The deliveries first, then their attempts, in one statement: the UPDATE locks each delivery still there (an endpoint
  // deleted meanwhile took its deliveries, whose attempts are then left out), so the attempts' foreign-key checks find
  // rows this transaction already holds instead of locking each one again (a tuple write per attempt, the costliest part
  // of recording a batch in the pipeline's profile). A delivery already finished (a batch sent again after its lease ran
  // out) keeps the attempts it has.
  await tx.query(sql.typeAlias('void')`
      WITH recorded AS (
        UPDATE webhook_deliveries d
        SET status = r.outcome, attempt_count = GREATEST(d.attempt_count, r.attempt), last_status_code = r.status_code, last_error = r.error,
            finished_at = CASE WHEN r.outcome = 'retrying' THEN NULL ELSE now() END
        FROM ${unnestRows(attempts, 'r', {
          id: ['uuid', (record) => record.deliveryId],
          outcome: ['text', (record) => record.outcome],
          attempt: ['int4', (record) => record.attempt],
          status_code: ['int4', (record) => record.statusCode],
          error: ['text', (record) => record.error],
        })}
        WHERE d.id = r.id AND d.finished_at IS NULL
        RETURNING d.id
      )
      INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms, error, response_excerpt)
      SELECT a.* FROM ${unnestRows(attempts, 'a', {
        delivery_id: ['uuid', (record) => record.deliveryId],
        attempt: ['int4', (record) => record.attempt],
        attempted_at: ['timestamptz', (record) => record.attemptedAt],
        status_code: ['int4', (record) => record.statusCode],
        latency_ms: ['int4', (record) => record.latencyMs],
        error: ['text', (record) => record.error],
        response_excerpt: ['text', (record) => record.excerpt],
      })}
      WHERE a.delivery_id IN (SELECT id FROM recorded)
      ON CONFLICT (delivery_id, attempt) DO NOTHING
    `);
  if (attempts.some((record) => record.outcome === 'failed')) await deactivateIfFailingTooLong(tx, batch.endpointId, deactivateAfterMs);
  // Finished deliveries and first attempts free room of the endpoint: the dispatcher may claim more.
  await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${EVENTS_CHANNEL}, '')`);
}

/** In the outcomes' transaction: a crash before it commits leaves the lease to run out and the batch to be sent again. */
async function endLease(tx: CommonQueryMethods, lease: NonNullable<BatchRecord['lease']>): Promise<void> {
  await tx.query(sql.typeAlias('void')`DELETE FROM webhook_delivery_batches WHERE id = ${lease.batchId}`);
  if (lease.retries.length === 0) return;
  await tx.query(sql.typeAlias('void')`
    INSERT INTO webhook_retries_pending (delivery_id, retry_at, trace_context)
    SELECT r.delivery_id, r.retry_at, r.trace_context::jsonb FROM ${unnestRows(lease.retries, 'r', {
      delivery_id: ['uuid', (retry) => retry.deliveryId],
      retry_at: ['timestamptz', (retry) => retry.retryAt],
      trace_context: ['text', (retry) => (retry.traceContext ? JSON.stringify(retry.traceContext) : null)],
    })}
    JOIN webhook_deliveries d ON d.id = r.delivery_id
    ORDER BY 1
    ${ONLY_DELIVERIES_STILL_THERE}
    ON CONFLICT (delivery_id) DO NOTHING
  `);
}

// How many first attempts may be in flight to one endpoint at once (its delivery window), adapted
// after every batch the way TCP adapts its congestion window: one more for each answer that came back
// fast, half as many after a batch with a failure (an error status, a timeout, a refused connection).
// A healthy endpoint thus climbs quickly to the ceiling (RALLY_WEBHOOK_ENDPOINT_CONCURRENCY) and an
// unhealthy one is soon sent one delivery at a time; a slow but successful one keeps its window.
// The dispatcher claims at most `window` waiting deliveries of an endpoint whose first attempts are
// not finished yet, and a batch sends its deliveries at once. A new endpoint starts at 8 (the
// column default of webhook_endpoints.delivery_window).

/** An answer within this is "fast": the receiver is keeping up. */
export const FAST_ANSWER_MS = 500;

export type AnswerSummary = { ok: boolean; latencyMs: number };

export function nextDeliveryWindow(current: number, answers: readonly AnswerSummary[], ceiling: number): number {
  if (answers.some((answer) => !answer.ok)) return Math.max(1, Math.floor(current / 2));
  const fast = answers.filter((answer) => answer.latencyMs <= FAST_ANSWER_MS).length;
  return Math.max(1, Math.min(ceiling, current + fast));
}
