// Notification emails waiting to go out. The outbox dispatcher marks new ones queued (again when one
// was not served within the requeue window, e.g. a lost signal) and wakes the notification-email
// digests workflow, which mails each recipient whose oldest pending email has waited a window: all
// of what is pending for them in one go.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const REQUEUE_AFTER_SECONDS = 15 * 60;

/**
 * Marks up to `limit` pending notification emails as queued and answers their recipients, for the
 * dispatcher to wake the digests workflow. Bounded so that one round's statement stays short however
 * many notifications a burst made (a spread signing spike notifies thousands of creators).
 */
export async function queuePendingEmails(db: CommonQueryMethods, limit: number): Promise<{ userIds: string[]; more: boolean }> {
  const rows = await db.any(sql.type(z.object({ user_id: z.string() }))`
    WITH picked AS (
      SELECT id FROM notifications
      WHERE email_pending AND (email_queued_at IS NULL OR email_queued_at < now() - make_interval(secs => ${REQUEUE_AFTER_SECONDS}))
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE notifications n SET email_queued_at = now() FROM picked WHERE n.id = picked.id
    RETURNING n.user_id
  `);
  return { userIds: [...new Set(rows.map((row) => row.user_id))], more: rows.length === limit };
}

export const PendingEmail = z.object({
  id: z.string(), type: z.string(), title: z.string(), body: z.string(), created_at: z.string(),
  email: z.string(), display_name: z.string(),
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
