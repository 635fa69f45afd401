// SQL of the dispatcher's steps. Step 1 turns outbox events into delivery rows and notifications and
// moves the dispatcher's position past them, in one transaction. Step 2 claims waiting deliveries into leased
// batches per endpoint, within the endpoint's room, for the dispatcher to send (worker/first-attempts.ts).
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

/** A claimed batch of first attempts to one endpoint, leased to the dispatcher that claimed it until `lease_until`. */
export const LeasedBatch = z.object({ id: z.string(), endpoint_id: z.string(), delivery_ids: z.array(z.string()) });
export type LeasedBatch = z.infer<typeof LeasedBatch>;

export type ClaimOptions = { ceiling: number; maxBatch: number; limit: number; leaseMs: number };

/**
 * Claims waiting deliveries into batches, one or more per endpoint, each recorded in
 * webhook_delivery_batches with a lease for the caller, which sends them and deletes the row with the
 * outcomes (core/webhooks/delivery-batches.ts). Per endpoint (locked, SKIP LOCKED, so two dispatchers
 * never fill the same room) it takes the oldest waiting ones, at most its delivery window minus its
 * first attempts still in flight, and at most `ceiling` minus all its unfinished deliveries (retries
 * included): an endpoint that is down holds at most `ceiling` retrying deliveries, and the rest wait
 * here in the database.
 *
 * Two statements, because a statement sees the database as it was when it began: a claim that locked
 * an endpoint just after another dispatcher's claim of it committed would, in the same statement,
 * still see that claim's deliveries waiting and send them a second time. The second statement begins
 * once the locks are held, so it sees every claim committed before them.
 */
export async function claimDeliveryBatches(tx: DatabaseTransactionConnection, options: ClaimOptions): Promise<readonly LeasedBatch[]> {
  const endpoints = await tx.any(sql.type(z.object({ id: z.string(), delivery_window: z.number() }))`
    SELECT ep.id, ep.delivery_window FROM webhook_endpoints ep
    WHERE ep.is_active AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = ep.id AND d.started_at IS NULL)
    FOR NO KEY UPDATE OF ep SKIP LOCKED
  `);
  if (endpoints.length === 0) return [];
  return tx.any(sql.type(LeasedBatch)`
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
      INSERT INTO webhook_delivery_batches (endpoint_id, delivery_ids, lease_until)
      SELECT endpoint_id, array_agg(id ORDER BY created_at, id), now() + ${leaseInterval(options.leaseMs)}
      FROM picked GROUP BY endpoint_id, part
      RETURNING id, endpoint_id, delivery_ids
    ), claimed AS (
      UPDATE webhook_deliveries d SET started_at = now(), batch_id = b.id
      FROM batches b WHERE d.id = ANY(b.delivery_ids)
    )
    SELECT id, endpoint_id, delivery_ids FROM batches
  `);
}

const leaseInterval = (leaseMs: number) => sql.fragment`make_interval(secs => ${leaseMs / 1000})`;

/**
 * Batches whose lease ran out, their dispatcher having died (or stalled) while sending them, leased
 * again to the caller: they are sent again under the same delivery ids (at least once). Rows the
 * workflow path left behind have no lease and come first.
 */
export function reclaimExpiredBatches(tx: DatabaseTransactionConnection, options: { leaseMs: number; limit: number }) {
  return tx.any(sql.type(LeasedBatch)`
    UPDATE webhook_delivery_batches b SET lease_until = now() + ${leaseInterval(options.leaseMs)}
    FROM (
      SELECT id FROM webhook_delivery_batches
      WHERE lease_until IS NULL OR lease_until < now()
      ORDER BY lease_until NULLS FIRST LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    ) expired
    WHERE b.id = expired.id
    RETURNING b.id, b.endpoint_id, b.delivery_ids
  `);
}

/** A stopping dispatcher's batches still in flight: any dispatcher's next sweep takes them again at once. */
export async function releaseLeases(db: CommonQueryMethods, batchIds: readonly string[]): Promise<void> {
  await db.query(sql.typeAlias('void')`UPDATE webhook_delivery_batches SET lease_until = now() WHERE id = ANY(${sql.array([...batchIds], 'uuid')})`);
}
