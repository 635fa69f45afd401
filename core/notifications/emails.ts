// Notification emails waiting to go out. The outbox dispatcher queues each recipient (once, or again
// when a queued recipient was not served within the requeue window, e.g. a lost signal); the
// recipient's notification-emails workflow then takes everything pending in one go.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const REQUEUE_AFTER_SECONDS = 15 * 60;

/** Marks pending, unqueued emails as queued; returns their recipients. */
export async function queuePendingEmails(db: CommonQueryMethods): Promise<string[]> {
  const rows = await db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    WITH queued AS (
      UPDATE notifications SET email_queued_at = now()
      WHERE email_pending AND (email_queued_at IS NULL OR email_queued_at < now() - make_interval(secs => ${REQUEUE_AFTER_SECONDS}))
      RETURNING user_id
    )
    SELECT DISTINCT user_id FROM queued
  `);
  return [...rows];
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
