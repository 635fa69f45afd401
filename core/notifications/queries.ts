// SQL for a user's notifications and preferences. Every statement is scoped to the caller.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';

export const NotificationRow = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string(),
  body: z.string(),
  data: z.record(z.string(), z.unknown()),
  read_at: z.string().nullable(),
  created_at: z.string(),
});
export type NotificationRow = z.infer<typeof NotificationRow>;

const COLUMNS = sql.fragment`id, type, title, body, data, read_at, created_at`;

export function listNotifications(db: CommonQueryMethods, userId: string, filter: { unreadOnly: boolean; after?: readonly [string, string]; limit: number }) {
  const keyset = keysetPage(recencyKey(), filter.after, 'desc', filter.limit);
  return db.any(sql.type(NotificationRow)`
    SELECT ${COLUMNS} FROM notifications
    WHERE user_id = ${userId}
      ${filter.unreadOnly ? sql.fragment`AND read_at IS NULL` : sql.fragment``}
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

export function countNotifications(db: CommonQueryMethods, userId: string) {
  return db.one(sql.type(z.object({ total: z.number(), unread: z.number() }))`
    SELECT count(*)::int AS total, count(*) FILTER (WHERE read_at IS NULL)::int AS unread FROM notifications WHERE user_id = ${userId}
  `);
}

/** Served by the partial index of unread rows, so it stays cheap for users with long histories. */
export function countUnread(db: CommonQueryMethods, userId: string) {
  return db.oneFirst(
    sql.type(z.object({ unread: z.number() }))`SELECT count(*)::int AS unread FROM notifications WHERE user_id = ${userId} AND read_at IS NULL`,
  );
}

export function findNotification(db: CommonQueryMethods, userId: string, id: string) {
  return db.maybeOne(sql.type(NotificationRow)`SELECT ${COLUMNS} FROM notifications WHERE id = ${id} AND user_id = ${userId}`);
}

/** Marks the given ids, or every unread one; ids of other users are ignored. Returns how many changed. */
export async function markRead(db: CommonQueryMethods, userId: string, ids: readonly string[] | 'all'): Promise<number> {
  const result = await db.query(sql.type(z.object({ id: z.string() }))`
    UPDATE notifications SET read_at = now()
    WHERE user_id = ${userId} AND read_at IS NULL
      ${ids === 'all' ? sql.fragment`` : sql.fragment`AND id = ANY(${sql.array(ids, 'uuid')})`}
    RETURNING id
  `);
  return result.rowCount;
}

export function readPreferences(db: CommonQueryMethods, userId: string) {
  return db.maybeOneFirst(sql.type(z.object({ notification_prefs: z.record(z.string(), z.unknown()) }))`
    SELECT notification_prefs FROM users WHERE id = ${userId}
  `);
}

/** Merges per type (`{"comment.reply": {"in_app": false}}` keeps that type's `email`), under a row lock. */
export async function mergePreferences(db: DatabasePool, userId: string, patch: Record<string, Record<string, boolean>>) {
  return db.transaction(async (tx) => {
    const stored = await tx.oneFirst(sql.type(z.object({ notification_prefs: z.record(z.string(), z.unknown()) }))`
      SELECT notification_prefs FROM users WHERE id = ${userId} FOR UPDATE
    `);
    const merged: Record<string, unknown> = { ...stored };
    for (const [type, channels] of Object.entries(patch)) {
      const current = stored[type];
      merged[type] = { ...(current && typeof current === 'object' ? current : {}), ...channels };
    }
    await tx.query(sql.typeAlias('void')`UPDATE users SET notification_prefs = ${sql.jsonb(merged as never)}, updated_at = now() WHERE id = ${userId}`);
    return merged;
  });
}
