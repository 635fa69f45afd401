// Notification emails waiting to go out. The outbox dispatcher queues each recipient (once, or again
// when a queued recipient was not served within the requeue window, e.g. a lost signal); the
// recipient's notification-emails workflow then takes everything pending in one go.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const REQUEUE_AFTER_SECONDS = 15 * 60;

/**
 * Marks up to `limit` pending notification emails as queued and answers their recipients, for the
 * dispatcher to signal. Bounded so that a burst of notifications (a spread signing spike notifies
 * thousands of creators) is queued over several dispatcher rounds, each of which also starts webhook
 * deliveries, instead of holding them up until every recipient's workflow was started.
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
