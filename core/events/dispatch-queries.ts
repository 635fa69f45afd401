// SQL of the dispatcher's two steps. Step 1 turns outbox events into delivery rows and notifications
// and marks the events dispatched, in one transaction. Step 2 picks the delivery rows whose workflows
// may start now: per active endpoint, the oldest waiting ones, up to its free concurrency slots.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { notifyUsers } from '../notifications/create.ts';
import { notificationsForEvents } from '../notifications/from-events.ts';

const ClaimedEvent = z.object({
  id: z.string(),
  type: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  petition_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  creator_id: z.string().nullable(),
  petition_title: z.string().nullable(),
});

/**
 * Claims up to `limit` undispatched events (SKIP LOCKED: several dispatchers share the work), makes
 * their deliveries and notifications, and marks them dispatched. Returns how many events it took.
 */
export async function dispatchEventBatch(tx: DatabaseTransactionConnection, limit: number): Promise<number> {
  const events = await tx.any(sql.type(ClaimedEvent)`
    SELECT e.id, e.type, e.actor_type, e.actor_id, e.petition_id, e.data, p.creator_id, p.title AS petition_title
    FROM events e LEFT JOIN petitions p ON p.id = e.petition_id
    WHERE e.dispatched_at IS NULL
    ORDER BY e.position
    LIMIT ${limit}
    FOR UPDATE OF e SKIP LOCKED
  `);
  if (events.length === 0) return 0;
  const ids = events.map((event) => event.id);
  // An endpoint hears about petitions its owner created; a platform-wide one (made by an administrator
  // with a full credential) hears about all of them while its owner is still an administrator; the
  // owner and admins of an organization hear its own events (payment.completed), which name it in data.
  await tx.query(sql.typeAlias('void')`
    INSERT INTO webhook_deliveries (endpoint_id, event_id)
    SELECT ep.id, e.id
    FROM events e
    LEFT JOIN petitions p ON p.id = e.petition_id
    JOIN webhook_endpoints ep ON ep.is_active AND ep.events @> ARRAY[e.type]
    JOIN users u ON u.id = ep.user_id AND u.suspended_at IS NULL
    WHERE e.id = ANY(${sql.array(ids, 'uuid')}) AND ((ep.platform_wide AND u.role = 'admin') OR ep.user_id = p.creator_id OR EXISTS (
      SELECT 1 FROM organization_members m
      WHERE e.petition_id IS NULL AND m.org_id::text = e.data->>'organization_id' AND m.user_id = ep.user_id AND m.role IN ('owner', 'admin')
    ))
    ORDER BY e.position
    ON CONFLICT (endpoint_id, event_id) WHERE cause = 'event' DO NOTHING
  `);
  await notifyUsers(tx, notificationsForEvents(events));
  await tx.query(sql.typeAlias('void')`UPDATE events SET dispatched_at = now() WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  return events.length;
}

export const StartableDelivery = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  /** What the Web UI shows of the delivery (its memo) and searches it by. */
  endpoint_url: z.string(),
  event_type: z.string(),
  petition_id: z.string().nullable(),
  petition_title: z.string().nullable(),
  /** The trace of the request that wrote the event (first dispatch only; a replay is a trace of its own). */
  trace_context: z.record(z.string(), z.string()).nullable(),
});
export type StartableDelivery = z.infer<typeof StartableDelivery>;

/**
 * Deliveries whose workflows may start: the endpoints are locked (SKIP LOCKED) until the caller's
 * transaction ends, so two dispatchers never both fill one endpoint's free slots.
 */
export function selectStartableDeliveries(tx: DatabaseTransactionConnection, perEndpoint: number, limit: number) {
  return tx.any(sql.type(StartableDelivery)`
    WITH waiting AS (
      SELECT ep.id, ep.url FROM webhook_endpoints ep
      WHERE ep.is_active AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = ep.id AND d.started_at IS NULL)
      FOR NO KEY UPDATE OF ep SKIP LOCKED
    )
    SELECT d.id, d.endpoint_id, ep.url AS endpoint_url, d.event_type, d.petition_id, d.petition_title, d.trace_context
    FROM waiting ep
    CROSS JOIN LATERAL (
      SELECT count(*) AS in_flight FROM webhook_deliveries f
      WHERE f.endpoint_id = ep.id AND f.started_at IS NOT NULL AND f.finished_at IS NULL
    ) busy
    CROSS JOIN LATERAL (
      SELECT d.id, d.endpoint_id, d.created_at, e.type AS event_type, e.petition_id, p.title AS petition_title,
        CASE WHEN d.cause = 'event' THEN e.trace_context END AS trace_context
      FROM webhook_deliveries d
      JOIN events e ON e.id = d.event_id
      LEFT JOIN petitions p ON p.id = e.petition_id
      WHERE d.endpoint_id = ep.id AND d.started_at IS NULL
      ORDER BY d.created_at, d.id
      LIMIT GREATEST(0, ${perEndpoint} - busy.in_flight)
    ) d
    ORDER BY d.created_at
    LIMIT ${limit}
  `);
}

export async function markStarted(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  await db.query(sql.typeAlias('void')`UPDATE webhook_deliveries SET started_at = now() WHERE id = ANY(${sql.array(ids, 'uuid')}) AND started_at IS NULL`);
}
