// The outbox's days: one partition of `events` per UTC day, made ahead of time (an insert into a day
// without one would fail) and dropped whole once the day is older than RALLY_EVENT_RETENTION, so the
// table never holds dead rows from its retention and shrinks without VACUUM FULL.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { DISPATCHER } from './outbox-reader.ts';

const DAY_MS = 86_400_000;
/** Days made ahead: a week of schedules may fail before an insert would. */
export const DAYS_AHEAD = 7;
// Making or dropping a partition locks `events` for an instant; behind a long query on it, signing
// would queue behind that lock, so the attempt gives up instead and the next hourly run tries again.
const LOCK_TIMEOUT = sql.fragment`SET LOCAL lock_timeout = '2s'`;

const dayName = (dayStart: number) => `events_${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;

/** Makes the partitions of today and the DAYS_AHEAD days after `now` that do not exist; returns how many it made. */
export async function ensureEventPartitions(db: CommonQueryMethods, now: Date): Promise<number> {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  let made = 0;
  for (let day = 0; day <= DAYS_AHEAD; day += 1) {
    const from = today + day * DAY_MS;
    const name = dayName(from);
    const exists = await db.oneFirst(sql.type(z.object({ exists: z.boolean() }))`SELECT to_regclass(${name}) IS NOT NULL AS exists`);
    if (exists) continue;
    await db.transaction(async (tx) => {
      await tx.query(sql.typeAlias('void')`${LOCK_TIMEOUT}`);
      await tx.query(sql.typeAlias('void')`
        CREATE TABLE IF NOT EXISTS ${sql.identifier([name])} PARTITION OF events
        FOR VALUES FROM (${sql.literalValue(new Date(from).toISOString())}) TO (${sql.literalValue(new Date(from + DAY_MS).toISOString())})
      `);
    });
    made += 1;
  }
  return made;
}

const Partition = z.object({ name: z.string(), upper_ms: z.number() });

/**
 * Drops every partition whose last instant is older than `retentionMs` before `now` and whose events
 * the dispatcher has all read (one it has not stays, however old); returns the names dropped.
 */
export async function dropExpiredEventPartitions(db: CommonQueryMethods, now: Date, retentionMs: number): Promise<string[]> {
  const partitions = await db.any(sql.type(Partition)`
    SELECT c.relname AS name,
      extract(epoch FROM substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO [(]''([^'']+)''[)]')::timestamptz)::float8 * 1000 AS upper_ms
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass
  `);
  const cutoff = now.getTime() - retentionMs;
  const dropped: string[] = [];
  for (const partition of partitions) {
    if (partition.upper_ms > cutoff) continue;
    const table = sql.identifier([partition.name]);
    const unread = await db.oneFirst(sql.type(z.object({ unread: z.boolean() }))`
      SELECT EXISTS (
        SELECT 1 FROM ${table} e, event_consumers c WHERE c.name = ${DISPATCHER} AND (e.transaction_id, e.position) > (c.transaction_id, c.position)
      ) AS unread
    `);
    if (unread) continue;
    await db.transaction(async (tx) => {
      await tx.query(sql.typeAlias('void')`${LOCK_TIMEOUT}`);
      await tx.query(sql.typeAlias('void')`DROP TABLE ${table}`);
    });
    dropped.push(partition.name);
  }
  return dropped;
}
