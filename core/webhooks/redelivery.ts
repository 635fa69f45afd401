// Sending again on request. Both make new delivery rows (new X-Rally-Delivery-Ids, since the receiver
// asked for another copy; the payload `id` stays the event id) which the dispatcher picks up like any
// other, within the endpoint's concurrency limit. The NOTIFY wakes it at once.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { invalidField, RateLimited } from '../errors/domain-error.ts';
import { z } from 'zod';
import { EVENTS_CHANNEL } from '../events/record-event.ts';
import { DISPATCHER } from '../events/outbox-reader.ts';
import { sql } from '../../db/sql.ts';
import { DeliveryRow } from './queries.ts';

/** Events per replay call; a longer outage is replayed in several calls (next_since). */
export const REPLAY_LIMIT = 10_000;
/** Replay calls per endpoint per hour, so replaying cannot be used to flood a receiver. */
export const REPLAYS_PER_HOUR = 10;

const wakeDispatcher = (db: CommonQueryMethods) => db.query(sql.typeAlias('void')`SELECT FROM pg_notify(${EVENTS_CHANNEL}, '')`);

export async function redeliver(db: CommonQueryMethods, endpointId: string, deliveryId: string) {
  const created = await db.maybeOne(sql.type(DeliveryRow)`
    WITH copy AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, cause)
      SELECT endpoint_id, event_id, 'redelivery' FROM webhook_deliveries WHERE id = ${deliveryId} AND endpoint_id = ${endpointId}
      RETURNING *
    )
    SELECT d.id, d.endpoint_id, d.event_id, e.type AS event_type, d.cause, d.status, d.attempt_count,
           d.last_status_code, d.last_error, d.created_at, d.finished_at
    FROM copy d JOIN events e ON e.id = d.event_id
  `);
  if (created) await wakeDispatcher(db);
  return created;
}

/** The oldest time a replay reaches: events older than `retentionMs` (RALLY_EVENT_RETENTION) may be gone. */
export function oldestReplayable(retentionMs: number, now = Date.now()): Date {
  return new Date(Math.ceil((now - retentionMs) / 1000) * 1000);
}

/**
 * Queues every already-dispatched event since `since` that the endpoint subscribes to and may see
 * (its owner's petitions; everything for a platform-wide endpoint), oldest first, up to
 * REPLAY_LIMIT; at most REPLAYS_PER_HOUR calls per endpoint. A `since` before the retention window
 * (`retentionMs`) is refused: the events it asks for may have been dropped.
 */
export async function replaySince(
  db: DatabasePool,
  endpoint: { id: string; events: readonly string[]; ownerId: string; platformWide: boolean },
  since: string,
  retentionMs: number,
): Promise<{ replayed: number; nextSince: string | null }> {
  const oldest = oldestReplayable(retentionMs);
  if (Date.parse(since) < oldest.getTime()) {
    throw invalidField('since', 'replay_window', `must be ${oldest.toISOString()} or later: events are kept for ${retentionMs / 86_400_000} days.`);
  }
  const result = await db.transaction(async (tx) => {
    await tx.query(sql.typeAlias('void')`SELECT FROM webhook_endpoints WHERE id = ${endpoint.id} FOR UPDATE`);
    const recent = await tx.one(sql.type(z.object({ count: z.number(), retry_after: z.number().nullable() }))`
      SELECT count(*)::int AS count, ceil(extract(epoch FROM min(requested_at) + interval '1 hour' - now()))::int AS retry_after
      FROM webhook_replay_requests WHERE endpoint_id = ${endpoint.id} AND requested_at > now() - interval '1 hour'
    `);
    if (recent.count >= REPLAYS_PER_HOUR) {
      throw new RateLimited(`An endpoint may be replayed ${REPLAYS_PER_HOUR} times an hour.`, {
        code: 'replay_limit',
        retryAfterSeconds: Math.max(1, recent.retry_after ?? 3600),
      });
    }
    await tx.query(sql.typeAlias('void')`INSERT INTO webhook_replay_requests (endpoint_id) VALUES (${endpoint.id})`);
    return tx.one(sql.type(z.object({ replayed: z.number(), next_since: z.string().nullable() }))`
      WITH picked AS (
        SELECT e.id, e.occurred_at, row_number() OVER (ORDER BY e.occurred_at, e.position) AS n
        FROM events e LEFT JOIN petitions p ON p.id = e.petition_id
        CROSS JOIN (SELECT transaction_id, position FROM event_consumers WHERE name = ${DISPATCHER}) dispatched
        WHERE e.occurred_at >= ${since}::timestamptz AND (e.transaction_id, e.position) <= (dispatched.transaction_id, dispatched.position)
          AND e.type = ANY(${sql.array(endpoint.events, 'text')})
          AND (${endpoint.platformWide} OR p.creator_id = ${endpoint.ownerId})
        ORDER BY e.occurred_at, e.position
        LIMIT ${REPLAY_LIMIT + 1}
      ), queued AS (
        INSERT INTO webhook_deliveries (endpoint_id, event_id, cause)
        SELECT ${endpoint.id}, id, 'replay' FROM picked WHERE n <= ${REPLAY_LIMIT} ORDER BY n
        RETURNING 1
      )
      SELECT (SELECT count(*)::int FROM queued) AS replayed, (SELECT occurred_at FROM picked WHERE n > ${REPLAY_LIMIT}) AS next_since
    `);
  });
  if (result.replayed > 0) await wakeDispatcher(db);
  return { replayed: result.replayed, nextSince: result.next_since };
}
