// SQL behind a delivery attempt: what to send, and recording what happened. Recording is one
// transaction: the attempt row, the delivery's status, the endpoint's failure streak and, when the
// streak is old enough, its deactivation with a notification to the owner.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { EVENTS_CHANNEL } from '../events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { notifyUsers } from '../notifications/create.ts';

export const DeliveryContext = z.object({
  id: z.string(),
  status: z.enum(['pending', 'retrying', 'delivered', 'failed']),
  endpoint_id: z.string(),
  url: z.string(),
  is_active: z.boolean(),
  secret_ciphertext: z.instanceof(Buffer),
  previous_secret_ciphertext: z.instanceof(Buffer).nullable(),
  event_id: z.string(),
  type: z.string(),
  occurred_at: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export type DeliveryContext = z.infer<typeof DeliveryContext>;

export function loadDeliveryContext(db: CommonQueryMethods, deliveryId: string) {
  return db.maybeOne(sql.type(DeliveryContext)`
    SELECT d.id, d.status, d.endpoint_id, ep.url, ep.is_active, ep.secret_ciphertext,
           CASE WHEN ep.previous_secret_expires_at > now() THEN ep.previous_secret_ciphertext END AS previous_secret_ciphertext,
           e.id AS event_id, e.type, e.occurred_at, e.actor_type, e.actor_id, e.data
    FROM webhook_deliveries d
    JOIN webhook_endpoints ep ON ep.id = d.endpoint_id
    JOIN events e ON e.id = d.event_id
    WHERE d.id = ${deliveryId}
  `);
}

export type AttemptRecord = {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  excerpt: string | null;
  outcome: 'delivered' | 'retrying' | 'failed';
};

/**
 * For an attempt's INSERT … SELECT over webhook_deliveries d: holds each delivery against deletion
 * until the attempt is written, and leaves out any deleted meanwhile (its endpoint was deleted while
 * the attempt was in flight; the cascade already took the delivery and its earlier attempts).
 */
export const ONLY_DELIVERIES_STILL_THERE = sql.fragment`FOR KEY SHARE OF d`;

export async function recordAttempt(db: DatabasePool, record: AttemptRecord, deactivateAfterMs: number): Promise<void> {
  await db.transaction(async (tx) => {
    // The endpoint row first: the dispatcher locks endpoints before deliveries, so the same order
    // here cannot deadlock with it. Only a change of state writes it, so a healthy busy endpoint
    // is not a hot row.
    if (record.outcome === 'delivered') {
      await tx.query(sql.typeAlias('void')`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ${record.endpointId} AND failing_since IS NOT NULL`);
    } else {
      await tx.query(
        sql.typeAlias('void')`UPDATE webhook_endpoints SET failing_since = ${record.attemptedAt} WHERE id = ${record.endpointId} AND failing_since IS NULL`,
      );
    }
    await tx.query(sql.typeAlias('void')`
      INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms, error, response_excerpt)
      SELECT d.id, ${record.attempt}, ${record.attemptedAt}, ${record.statusCode}, ${record.latencyMs}, ${record.error}, ${record.excerpt}
      FROM webhook_deliveries d WHERE d.id = ${record.deliveryId}
      ${ONLY_DELIVERIES_STILL_THERE}
      ON CONFLICT (delivery_id, attempt) DO NOTHING
    `);
    const finished = record.outcome !== 'retrying';
    await tx.query(sql.typeAlias('void')`
      UPDATE webhook_deliveries
      SET status = ${record.outcome}, attempt_count = GREATEST(attempt_count, ${record.attempt}),
          last_status_code = ${record.statusCode}, last_error = ${record.error},
          finished_at = ${finished ? sql.fragment`now()` : sql.fragment`NULL`}
      WHERE id = ${record.deliveryId} AND finished_at IS NULL
    `);
    if (record.outcome === 'failed') await deactivateIfFailingTooLong(tx, record.endpointId, deactivateAfterMs);
    // A finished delivery frees a slot of its endpoint: the dispatcher may start the next one.
    if (finished) await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${EVENTS_CHANNEL}, '')`);
  });
}

/** Ends a delivery that cannot be attempted any more (endpoint deactivated, address refused, retries used up by crashes). */
export async function finishDeliveryFailed(db: CommonQueryMethods, deliveryId: string, reason: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE webhook_deliveries SET status = 'failed', last_error = ${reason}, finished_at = now()
    WHERE id = ${deliveryId} AND finished_at IS NULL
  `);
  await db.query(sql.typeAlias('void')`SELECT FROM pg_notify(${EVENTS_CHANNEL}, '')`);
}

/**
 * An endpoint whose every attempt has failed for RALLY_WEBHOOK_DEACTIVATE_AFTER (default 3 days), and
 * which has just used up all retries of a delivery, is switched off and its owner told. Its waiting
 * deliveries stay queued: they go out if the owner turns it back on (PATCH is_active: true).
 */
export async function deactivateIfFailingTooLong(tx: CommonQueryMethods, endpointId: string, deactivateAfterMs: number): Promise<void> {
  const deactivated = await tx.maybeOne(sql.type(z.object({ user_id: z.string(), url: z.string(), deactivated_at: z.string() }))`
    UPDATE webhook_endpoints
    SET is_active = false, deactivated_at = now(), updated_at = now(),
        deactivation_reason = 'every delivery attempt failed since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
    WHERE id = ${endpointId} AND is_active AND failing_since <= now() - make_interval(secs => ${deactivateAfterMs / 1000})
    RETURNING user_id, url, deactivated_at
  `);
  if (!deactivated) return;
  await notifyUsers(tx, [
    {
      userId: deactivated.user_id,
      type: 'webhook.deactivated',
      title: 'A webhook endpoint was turned off',
      body:
        `Deliveries to ${deactivated.url} kept failing, so it was deactivated. Fix the receiver, then set ` +
        `is_active to true; waiting deliveries will go out and POST /v1/webhooks/${endpointId}/replay ` +
        `re-sends failed ones.`,
      data: { webhook_id: endpointId, url: deactivated.url },
      dedupeKey: `webhook-deactivated:${endpointId}:${deactivated.deactivated_at}`,
    },
  ]);
}
