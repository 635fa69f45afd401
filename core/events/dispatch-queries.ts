// SQL of the dispatcher's steps. Step 1 turns outbox events into delivery rows and notifications and
// moves the dispatcher's position past them, in one transaction. Step 2 claims waiting deliveries into batches per
// endpoint, within the endpoint's room; step 3 starts the batches' workflows.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql, unnestRows } from '../../db/sql.ts';
import { notifyUsers } from '../notifications/create.ts';
import { notificationsForEvents } from '../notifications/from-events.ts';
import { DISPATCHER, lockPosition, readAfter, storePosition, waitingBehindHorizon } from './outbox-reader.ts';

export type DispatchRound = {
  /** Events read past (fanned out or passed over); `limit` of them means more may be waiting. */
  read: number;
  /** Committed events wait behind an older transaction still running: worth looking again shortly. */
  waiting: boolean;
};

/**
 * Reads up to `limit` events past the dispatcher's position (core/events/outbox-reader.ts), makes
 * their deliveries and notifications, and stores the new position, all in the caller's transaction:
 * a crash before the commit leaves the position where it was, and a second fan-out of the same events
 * adds nothing (deliveries and notifications are unique per event). The position's row lock makes
 * dispatchers take turns.
 */
export async function dispatchEventBatch(tx: DatabaseTransactionConnection, limit: number): Promise<DispatchRound> {
  const at = await lockPosition(tx, DISPATCHER);
  const events = await readAfter(tx, at, limit);
  if (events.length === 0) return { read: 0, waiting: await waitingBehindHorizon(tx, at) };
  const wanted = events.filter((event) => event.data !== null).map((event) => ({ ...event, data: event.data ?? {} }));
  if (wanted.length > 0) {
    // An endpoint hears about petitions its owner created; a platform-wide one (made by an administrator
    // with a full credential) hears about all of them while its owner is still an administrator; the
    // owner and admins of an organization hear its own events (payment.completed), which name it in data.
    await tx.query(sql.typeAlias('void')`
      INSERT INTO webhook_deliveries (endpoint_id, event_id)
      SELECT ep.id, e.id
      FROM ${unnestRows(
        wanted,
        'e',
        {
          id: ['uuid', (event) => event.id],
          type: ['text', (event) => event.type],
          petition_id: ['uuid', (event) => event.petition_id],
          organization_id: ['text', (event) => (typeof event.data.organization_id === 'string' ? event.data.organization_id : null)],
        },
        'n',
      )}
      LEFT JOIN petitions p ON p.id = e.petition_id
      JOIN webhook_endpoints ep ON ep.is_active AND ep.events @> ARRAY[e.type]
      JOIN users u ON u.id = ep.user_id AND u.suspended_at IS NULL
      WHERE (ep.platform_wide AND u.role = 'admin') OR ep.user_id = p.creator_id OR EXISTS (
        SELECT 1 FROM organization_members m
        WHERE e.petition_id IS NULL AND m.org_id::text = e.organization_id AND m.user_id = ep.user_id AND m.role IN ('owner', 'admin')
      )
      ORDER BY e.n
      ON CONFLICT (endpoint_id, event_id) WHERE cause = 'event' DO NOTHING
    `);
    await notifyUsers(tx, notificationsForEvents(wanted));
  }
  const last = events.at(-1)!;
  const next = { transaction_id: last.transaction_id, position: last.position };
  await storePosition(tx, DISPATCHER, next);
  return { read: events.length, waiting: events.length < limit && (await waitingBehindHorizon(tx, next)) };
}

/**
 * Claims waiting deliveries into batches, one or more per endpoint, and records the batches
 * (webhook_delivery_batches) for the caller to start their workflows; returns how many deliveries it
 * claimed. Per endpoint (locked, SKIP LOCKED, so two dispatchers never fill the same room) it takes
 * the oldest waiting ones, at most its delivery window minus its first attempts still in flight, and
 * at most `ceiling` minus all its unfinished deliveries (retries included): an endpoint that is down
 * holds at most `ceiling` retrying deliveries, and the rest wait here in the database.
 *
 * Two statements, because a statement sees the database as it was when it began: a claim that locked
 * an endpoint just after another dispatcher's claim of it committed would, in the same statement,
 * still see that claim's deliveries waiting and send them a second time. The second statement begins
 * once the locks are held, so it sees every claim committed before them.
 */
export async function claimDeliveryBatches(tx: DatabaseTransactionConnection, options: { ceiling: number; maxBatch: number; limit: number }): Promise<number> {
  const endpoints = await tx.any(sql.type(z.object({ id: z.string(), delivery_window: z.number() }))`
    SELECT ep.id, ep.delivery_window FROM webhook_endpoints ep
    WHERE ep.is_active AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = ep.id AND d.started_at IS NULL)
    FOR NO KEY UPDATE OF ep SKIP LOCKED
  `);
  if (endpoints.length === 0) return 0;
  return tx.oneFirst(sql.type(z.object({ claimed: z.number() }))`
    WITH room AS (
      SELECT w.id, LEAST(w.delivery_window - busy.first_attempts, ${options.ceiling} - busy.unfinished) AS free
      FROM ${unnestRows(endpoints, 'w', { id: ['uuid', (endpoint) => endpoint.id], delivery_window: ['int4', (endpoint) => endpoint.delivery_window] })}
      CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE f.status = 'pending') AS first_attempts, count(*) AS unfinished FROM webhook_deliveries f
        WHERE f.endpoint_id = w.id AND f.started_at IS NOT NULL AND f.finished_at IS NULL
      ) busy
    ), picked AS (
      SELECT d.id, d.endpoint_id, d.created_at, (row_number() OVER (PARTITION BY d.endpoint_id ORDER BY d.created_at, d.id) - 1) / ${options.maxBatch} AS part
      FROM room CROSS JOIN LATERAL (
        SELECT d.id, d.endpoint_id, d.created_at FROM webhook_deliveries d
        WHERE d.endpoint_id = room.id AND d.started_at IS NULL
        ORDER BY d.created_at, d.id
        LIMIT GREATEST(0, room.free)
      ) d
      ORDER BY d.created_at
      LIMIT ${options.limit}
    ), batches AS (
      INSERT INTO webhook_delivery_batches (endpoint_id, delivery_ids)
      SELECT endpoint_id, array_agg(id ORDER BY created_at, id) FROM picked GROUP BY endpoint_id, part
      RETURNING id, delivery_ids
    ), claimed AS (
      UPDATE webhook_deliveries d SET started_at = now(), batch_id = b.id
      FROM batches b WHERE d.id = ANY(b.delivery_ids)
      RETURNING 1
    )
    SELECT count(*)::int AS claimed FROM claimed
  `);
}

export const DeliveryBatch = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  delivery_ids: z.array(z.string()),
  /** What the Web UI shows of the batch (its memo) and searches it by, from its first delivery. */
  endpoint_url: z.string(),
  event_type: z.string(),
  /** The petition, when every delivery of the batch is about the same one. */
  petition_id: z.string().nullable(),
  petition_title: z.string().nullable(),
  /** The trace of the request that wrote the first event (first dispatch only; a replay is a trace of its own). */
  trace_context: z.record(z.string(), z.string()).nullable(),
});
export type DeliveryBatch = z.infer<typeof DeliveryBatch>;

/** Batches whose workflows may not be started yet, oldest first, locked until the caller's transaction ends. */
export function unstartedBatches(tx: DatabaseTransactionConnection, limit: number) {
  return tx.any(sql.type(DeliveryBatch)`
    SELECT b.id, b.endpoint_id, b.delivery_ids, ep.url AS endpoint_url, first.event_type,
      CASE WHEN about.petitions = 1 THEN first.petition_id END AS petition_id, CASE WHEN about.petitions = 1 THEN first.petition_title END AS petition_title,
      first.trace_context
    FROM webhook_delivery_batches b
    JOIN webhook_endpoints ep ON ep.id = b.endpoint_id
    CROSS JOIN LATERAL (
      SELECT e.type AS event_type, e.petition_id, p.title AS petition_title, CASE WHEN d.cause = 'event' THEN e.trace_context END AS trace_context
      FROM webhook_deliveries d JOIN events e ON e.id = d.event_id LEFT JOIN petitions p ON p.id = e.petition_id
      WHERE d.id = b.delivery_ids[1]
    ) first
    CROSS JOIN LATERAL (
      SELECT count(DISTINCT e.petition_id) AS petitions FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = ANY(b.delivery_ids)
    ) about
    ORDER BY b.created_at LIMIT ${limit} FOR UPDATE OF b SKIP LOCKED
  `);
}

/** Temporal accepted their workflows: nothing is left to do for these batches here. */
export async function forgetStartedBatches(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  await db.query(sql.typeAlias('void')`DELETE FROM webhook_delivery_batches WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
}
