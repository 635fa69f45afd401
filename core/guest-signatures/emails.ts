// What the guest-signature-emails workflow works through, a bounded batch per statement: the confirmation emails that are due (with whether the address had
// signed already, which the email says instead of sending a link), the one reminder halfway to the deadline, and the expiry. The outbox dispatcher wakes that
// workflow for new emails and marks them queued (queueDueEmails), as it does for notification emails (core/notifications/emails.ts).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql, unnestRows } from '../../db/sql.ts';
import { GUEST_IDENTITY_ISSUER } from '../vocabulary.ts';

const REQUEUE_AFTER_SECONDS = 15 * 60;
// Expired rows stay this long for the "this link has expired" page, then go (name, address and all).
const KEEP_EXPIRED_SECONDS = 30 * 24 * 3600;

/** Wakes the workflow (`wake`) for up to `limit` due emails not queued yet, then marks them queued. */
export async function queueDueEmails(db: CommonQueryMethods, limit: number, wake: () => Promise<void>): Promise<{ more: boolean }> {
  const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM guest_signatures
    -- Never queued, or queued and not served within the window: the expression of the index of due
    -- emails (migration 0033), in its order, so that a poll with nothing due reads one index entry
    -- however many queued ones the workflow is still working through.
    WHERE email_due AND COALESCE(email_queued_at, '-infinity'::timestamptz) < now() - make_interval(secs => ${REQUEUE_AFTER_SECONDS})
    ORDER BY COALESCE(email_queued_at, '-infinity'::timestamptz)
    LIMIT ${limit}
  `);
  if (ids.length === 0) return { more: false };
  await wake();
  await db.query(sql.typeAlias('void')`
    UPDATE guest_signatures SET email_queued_at = now() WHERE id = ANY(${sql.array([...ids], 'uuid')}) AND email_due
  `);
  return { more: ids.length === limit };
}

export const GuestEmail = z.object({
  id: z.string(),
  email: z.string(),
  /** rally_email_key(email): what "never email me again" stops (mail-stop.ts). */
  email_key: z.string(),
  display_name: z.string(),
  petition_title: z.string(),
  petition_slug: z.string(),
  expires_at: z.string(),
  /** The address had signed this petition already (by any way): the email says so and carries no link. */
  already_signed: z.boolean(),
});
export type GuestEmail = z.infer<typeof GuestEmail>;

// Signed by the user who owns the address (its address verified, as for the signer of a confirmation,
// core/users/guests.ts), or by the guest user of its normalised key.
const SIGNED_BEFORE = sql.fragment`EXISTS (
  SELECT 1 FROM users u JOIN signatures s ON s.user_id = u.id AND s.petition_id = g.petition_id
  WHERE (lower(u.email) = lower(g.email) AND u.email_verified) OR (u.identity_issuer = ${GUEST_IDENTITY_ISSUER} AND u.identity_subject = g.email_key))`;

/** Due confirmation emails, oldest first, locked until the caller's transaction ends. */
export function lockDueConfirmations(tx: CommonQueryMethods, limit: number) {
  return tx.any(sql.type(GuestEmail)`
    SELECT g.id, g.email, g.email_key, g.display_name, p.title AS petition_title, p.slug AS petition_slug, g.expires_at, ${SIGNED_BEFORE} AS already_signed
    FROM guest_signatures g JOIN petitions p ON p.id = g.petition_id
    WHERE g.email_due
    ORDER BY g.requested_at
    LIMIT ${limit}
    FOR UPDATE OF g SKIP LOCKED
  `);
}

/** The confirmations mailed; those that had signed already are done with (nothing to confirm, no reminder). */
export async function markMailed(tx: CommonQueryMethods, mailed: readonly GuestEmail[]): Promise<void> {
  await tx.query(sql.typeAlias('void')`
    UPDATE guest_signatures g SET email_due = false, emailed_at = now(),
      status = CASE WHEN m.already_signed AND g.status = 'pending' THEN 'already_signed' ELSE g.status END
    FROM ${unnestRows(mailed, 'm', { id: ['uuid', (row) => row.id], already_signed: ['bool', (row) => row.already_signed] })}
    WHERE g.id = m.id
  `);
}

/** The emails of guest signatures whose address stopped guest mail: none goes out, and no reminder later. */
export async function dropMail(tx: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  await tx.query(sql.typeAlias('void')`UPDATE guest_signatures SET email_due = false, remind = false WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
}

// A row that is to get its one reminder: mailed, not reminded, its address neither stopped guest mail
// nor over a per-address cap since it was asked for (migration 0039).
const REMINDER_DUE = sql.fragment`g.remind AND g.reminded_at IS NULL AND g.emailed_at IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM guest_mail_over_limit o WHERE o.email_key = g.email_key AND o.at >= g.requested_at)`;

/** Unconfirmed guest signatures past half their time and not reminded yet, locked. */
export function lockDueReminders(tx: CommonQueryMethods, ttlMs: number, limit: number) {
  return tx.any(sql.type(GuestEmail)`
    SELECT g.id, g.email, g.email_key, g.display_name, p.title AS petition_title, p.slug AS petition_slug, g.expires_at, false AS already_signed
    FROM guest_signatures g JOIN petitions p ON p.id = g.petition_id
    WHERE g.status = 'pending' AND NOT g.email_due AND ${REMINDER_DUE}
      AND g.expires_at - make_interval(secs => ${ttlMs / 2000}) <= now() AND g.expires_at > now()
    ORDER BY g.expires_at
    LIMIT ${limit}
    FOR UPDATE OF g SKIP LOCKED
  `);
}

export async function markReminded(tx: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  await tx.query(sql.typeAlias('void')`UPDATE guest_signatures SET reminded_at = now() WHERE id = ANY(${sql.array([...ids], 'uuid')})`);
}

/** Expires up to `limit` overdue guest signatures, forgets long-expired ones and spent caps; answers how many expired. */
export async function expireOverdue(db: CommonQueryMethods, limit: number, ttlMs: number): Promise<number> {
  const expired = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE guest_signatures SET status = 'expired', email_due = false
    WHERE id IN (SELECT id FROM guest_signatures WHERE status = 'pending' AND expires_at <= now() ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id
  `);
  await db.query(sql.typeAlias('void')`
    DELETE FROM guest_signatures WHERE id IN (
      SELECT id FROM guest_signatures WHERE status = 'expired' AND expires_at < now() - make_interval(secs => ${KEEP_EXPIRED_SECONDS})
      ORDER BY expires_at LIMIT ${limit})
  `);
  await db.query(sql.typeAlias('void')`
    DELETE FROM guest_mail_over_limit WHERE email_key IN (
      SELECT email_key FROM guest_mail_over_limit WHERE at < now() - make_interval(secs => ${ttlMs / 1000}) ORDER BY at LIMIT ${limit})
  `);
  return expired.length;
}

/** Milliseconds until the next email, reminder or expiry is due (0: now); null when nothing is open. */
export async function nextDueMs(db: CommonQueryMethods, ttlMs: number): Promise<number | null> {
  return db.oneFirst(sql.type(z.object({ due: z.number().nullable() }))`
    SELECT CASE
      WHEN EXISTS (SELECT 1 FROM guest_signatures WHERE email_due) THEN 0
      -- NULL when nothing is pending (min of no rows), not greatest(0, NULL), which is 0.
      ELSE (SELECT ceil(greatest(0, extract(epoch FROM min(CASE WHEN ${REMINDER_DUE}
          THEN g.expires_at - make_interval(secs => ${ttlMs / 2000}) ELSE g.expires_at END) - now())) * 1000)::int
        FROM guest_signatures g WHERE g.status = 'pending' HAVING count(*) > 0)
    END AS due
  `);
}
