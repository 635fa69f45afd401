// Notification emails waiting to go out. The outbox dispatcher wakes the notification-email digests workflow for new ones and then marks them queued (again
// when one was not served within the requeue window), and that workflow mails each recipient whose oldest pending email has waited a window: all of what is
// pending for them in one go.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const REQUEUE_AFTER_SECONDS = 15 * 60;

/**
 * Wakes the digests workflow (`wake`) for up to `limit` pending notification emails not yet queued,
 * then marks them queued; answers their recipients. Marked only once the wake-up succeeded: a refused,
 * failed or timed-out one throws and leaves them unqueued, so the next round wakes again, instead of
 * the requeue a quarter of an hour later. Two dispatchers may wake for the same emails; a second
 * wake-up costs nothing. Bounded so that one round's statements stay short however many
 * notifications a burst made (a spread signing spike notifies thousands of creators).
 */
export async function queuePendingEmails(
  db: CommonQueryMethods,
  limit: number,
  wake: (userIds: string[]) => Promise<void>,
): Promise<{ userIds: string[]; more: boolean }> {
  const rows = await db.any(sql.type(z.object({ id: z.string(), user_id: z.string() }))`
    SELECT id, user_id FROM notifications
    -- Never queued, or queued and not served within the window: the expression of the index of due
    -- emails (migration 0033), in its order, so that a poll with nothing due reads one index entry.
    WHERE email_pending AND COALESCE(email_queued_at, '-infinity'::timestamptz) < now() - make_interval(secs => ${REQUEUE_AFTER_SECONDS})
    ORDER BY COALESCE(email_queued_at, '-infinity'::timestamptz)
    LIMIT ${limit}
  `);
  if (rows.length === 0) return { userIds: [], more: false };
  const userIds = [...new Set(rows.map((row) => row.user_id))];
  await wake(userIds);
  await db.query(sql.typeAlias('void')`
    UPDATE notifications SET email_queued_at = now()
    WHERE id = ANY(${sql.array(
      rows.map((row) => row.id),
      'uuid',
    )}) AND email_pending
  `);
  return { userIds, more: rows.length === limit };
}

export const PendingEmail = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string(),
  body: z.string(),
  created_at: z.string(),
  email: z.string(),
  display_name: z.string(),
  /** The preference now: one switched off since the notification was made is not mailed. */
  wants_email: z.boolean(),
});
export type PendingEmail = z.infer<typeof PendingEmail>;

/** Everything pending for the user, oldest first; the rows stay locked until the caller's transaction ends. */
export function lockPendingEmails(tx: CommonQueryMethods, userId: string) {
  return tx.any(sql.type(PendingEmail)`
    SELECT n.id, n.type, n.title, n.body, n.created_at, u.email, u.display_name,
      COALESCE(u.notification_prefs -> n.type ->> 'email', 'true') <> 'false' AS wants_email
    FROM notifications n JOIN users u ON u.id = n.user_id
    WHERE n.user_id = ${userId} AND n.email_pending
    ORDER BY n.created_at, n.id
    LIMIT 200
    FOR UPDATE OF n SKIP LOCKED
  `);
}

export async function markEmailed(tx: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  await tx.query(sql.typeAlias('void')`
    UPDATE notifications SET email_pending = false, emailed_at = now() WHERE id = ANY(${sql.array([...ids], 'uuid')})
  `);
}

const DueRecipient = z.object({ user_id: z.string(), due_in_ms: z.number() });

/**
 * Recipients whose oldest pending email has waited `windowMs`, longest-waiting first, at most
 * `limit`; and how long until the next one is due (0 when more are due now, null when nothing is
 * pending). Served by notifications_email_pending_idx.
 */
export async function dueRecipients(db: CommonQueryMethods, windowMs: number, limit: number): Promise<{ userIds: string[]; nextDueMs: number | null }> {
  const rows = await db.any(sql.type(DueRecipient)`
    SELECT user_id, greatest(0, ceil(extract(epoch FROM min(created_at) + make_interval(secs => ${windowMs / 1000}) - now()) * 1000))::int AS due_in_ms
    FROM notifications
    WHERE email_pending
    GROUP BY user_id
    ORDER BY min(created_at), user_id
    LIMIT ${limit + 1}
  `);
  const due = rows.filter((row) => row.due_in_ms === 0);
  const userIds = due.slice(0, limit).map((row) => row.user_id);
  const later = rows.find((row) => row.due_in_ms > 0);
  const nextDueMs = due.length > limit ? 0 : (later?.due_in_ms ?? null);
  return { userIds, nextDueMs };
}
