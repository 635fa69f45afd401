// Reading the outbox as a log: each consumer keeps how far it got (event_consumers) and reads on from
// there, in (transaction_id, position) order and only below the oldest transaction still running, so
// an event whose transaction took its position early but committed late is never skipped.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { NOTIFIED_EVENT_TYPES } from '../notifications/from-events.ts';

/** The webhook and notification dispatcher (worker/event-dispatcher.ts), the one consumer today. */
export const DISPATCHER = 'dispatcher';

/** How far a consumer got: every event at or before this (transaction_id, position) is handled. */
export type LogPosition = { transaction_id: string; position: number };
const LogPosition = z.object({ transaction_id: z.string(), position: z.number() });

const LoggedEvent = z.object({
  id: z.string(),
  transaction_id: z.string(),
  position: z.number(),
  type: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  petition_id: z.string().nullable(),
  /** Null for a type no active endpoint and no notification wants: it is passed over, not fanned out. */
  data: z.record(z.string(), z.unknown()).nullable(),
  creator_id: z.string().nullable(),
  petition_title: z.string().nullable(),
});
export type LoggedEvent = z.infer<typeof LoggedEvent>;

/** Locks the consumer's position until the caller's transaction ends: one reader at a time, each going on from the last. */
export function lockPosition(tx: DatabaseTransactionConnection, consumer: string): Promise<LogPosition> {
  return tx.one(sql.type(LogPosition)`SELECT transaction_id::text, position FROM event_consumers WHERE name = ${consumer} FOR UPDATE`);
}

export async function storePosition(tx: DatabaseTransactionConnection, consumer: string, at: LogPosition): Promise<void> {
  await tx.query(sql.typeAlias('void')`
    UPDATE event_consumers SET transaction_id = ${at.transaction_id}::xid8, position = ${at.position} WHERE name = ${consumer}
  `);
}

// Why the horizon: positions are taken when a row is inserted, not when its transaction commits, so
// a position below one already read can still appear. A transaction's id is taken at its first write
// and every transaction with an id below pg_snapshot_xmin has ended, so the events below it are all
// there is ever going to be; any event still to come has a transaction id at or above it, that is
// after every (transaction_id, position) read so far. The price: a long writing transaction anywhere
// in the cluster holds events back until it ends (docs/architecture.md, "The outbox").
const AFTER = (at: LogPosition) => sql.fragment`(e.transaction_id, e.position) > (${at.transaction_id}::xid8, ${at.position}::int8)`;

/**
 * Up to `limit` events after `at` whose transactions and every one before them ended, in log order,
 * with their petition's creator and title; `data` only for the types an active endpoint or a
 * notification wants. The petition is looked up per wanted event (OFFSET 0 keeps the subquery from
 * being flattened): joined, the planner hashed the whole petitions table on every read, 43 of the
 * 55 ms a read of 5,000 events took beside 100,000 petitions (EXPLAIN ANALYZE; now 6 ms).
 */
export function readAfter(db: CommonQueryMethods, at: LogPosition, limit: number): Promise<readonly LoggedEvent[]> {
  return db.any(sql.type(LoggedEvent)`
    WITH wanted AS (
      SELECT DISTINCT unnest(events) AS type FROM webhook_endpoints WHERE is_active
      UNION SELECT unnest(${sql.array([...NOTIFIED_EVENT_TYPES], 'text')})
    ), scanned AS (
      SELECT e.id, e.transaction_id, e.position, e.type, e.actor_type, e.actor_id, e.petition_id, e.data FROM events e
      WHERE ${AFTER(at)} AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY e.transaction_id, e.position
      LIMIT ${limit}
    )
    SELECT s.id, s.transaction_id::text, s.position, s.type, s.actor_type, s.actor_id, s.petition_id,
      CASE WHEN w.type IS NOT NULL THEN s.data END AS data, p.creator_id, p.title AS petition_title
    FROM scanned s LEFT JOIN wanted w ON w.type = s.type
    LEFT JOIN LATERAL (SELECT p.creator_id, p.title FROM petitions p WHERE w.type IS NOT NULL AND p.id = s.petition_id OFFSET 0) p ON true
    ORDER BY s.transaction_id, s.position
  `);
}

/** Whether committed events after `at` wait for an older transaction to end (the reader should look again soon). */
export function waitingBehindHorizon(db: CommonQueryMethods, at: LogPosition): Promise<boolean> {
  return db.oneFirst(sql.type(z.object({ waiting: z.boolean() }))`
    SELECT EXISTS (SELECT 1 FROM events e WHERE ${AFTER(at)} AND e.transaction_id >= pg_snapshot_xmin(pg_current_snapshot())) AS waiting
  `);
}

/** Seconds since the oldest event `consumer` has not read was written; 0 when it is up to date. */
export function consumerLagSeconds(db: CommonQueryMethods, consumer: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ value: z.number() }))`
    SELECT COALESCE((
      SELECT extract(epoch FROM now() - e.occurred_at) FROM events e, event_consumers c
      WHERE c.name = ${consumer} AND (e.transaction_id, e.position) > (c.transaction_id, c.position)
      ORDER BY e.transaction_id, e.position LIMIT 1
    ), 0)::float8 AS value
  `);
}
