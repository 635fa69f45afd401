// Guest signing forms, stored as pending guest signatures in one statement per batch (submit-batcher.ts). Nothing is counted, listed or announced yet: the
// guest-signature-emails workflow mails the confirmation link (or says the address had signed already), and only the click makes a signature (confirm.ts).
import { randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql, unnestRows } from '../../db/sql.ts';
import { linkToken, tokenHash } from './tokens.ts';

/** At most one confirmation email (and one "you have already signed") per address and petition in this long. */
export const RESEND_AFTER_SECONDS = 60 * 60;
/** Confirmation emails one address may be sent per hour over every petition: no mail-bombing a stranger. */
export const EMAILS_PER_ADDRESS_PER_HOUR = 10;
const DAY_SECONDS = 24 * 60 * 60;

export type GuestFormSettings = {
  /** RALLY_ENCRYPTION_KEY, which the link tokens are keyed from. */
  encryptionKey: string;
  confirmationTtlMs: number;
  /** RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY: the daily cap beside the hourly one. */
  emailsPerAddressPerDay: number;
};

export type GuestSignatureForm = {
  petitionId: string;
  email: string;
  displayName: string;
  comment: string | null;
  isAnonymous: boolean;
  contactConsent: boolean;
  source: string | null;
  networkHash: Buffer | null;
};

// The answer is the same page whatever happens (new, already pending, already signed, over a ceiling): the form
// must never tell a stranger whether an address has an account or has signed. So the outcome is for the logs
// and tests only, and the page does not look at it.
export const SUBMIT_OUTCOMES = ['queued', 'requeued', 'recently_mailed', 'address_ceiling'] as const;
export type SubmitOutcome = (typeof SUBMIT_OUTCOMES)[number];

const Outcome = z.object({ ordinal: z.number(), outcome: z.enum(SUBMIT_OUTCOMES) });

/**
 * Stores each form as a pending guest signature whose email is due, or, for an address with an open
 * one on that petition, asks for its email again once RESEND_AFTER_SECONDS have passed. Answers each
 * form's outcome, in order.
 *
 * An address gets at most EMAILS_PER_ADDRESS_PER_HOUR and `emailsPerAddressPerDay` confirmation emails
 * (by its normalised key, so +tags do not multiply them). A form over either cap is not stored, and
 * the address's open guest signatures lose their reminder: someone is filling forms with it.
 *
 * Forms of one batch are judged as if sent one after another: an address's caps count the forms
 * before it in the batch (fifty forms for one address at once still send at most
 * EMAILS_PER_ADDRESS_PER_HOUR emails), and a second form for the same petition and address finds the
 * first one's email just sent.
 */
export async function submitGuestSignatures(
  db: CommonQueryMethods,
  forms: readonly GuestSignatureForm[],
  settings: GuestFormSettings,
): Promise<SubmitOutcome[]> {
  const ids = forms.map(() => randomUUID());
  const keyHex = settings.encryptionKey;
  const recent = sql.fragment`now() - make_interval(secs => ${RESEND_AFTER_SECONDS})`;
  const today = sql.fragment`now() - make_interval(secs => ${DAY_SECONDS})`;
  const rows = await db.any(sql.type(Outcome)`
    WITH given AS (
      SELECT i.*, rally_email_key(i.email) AS email_key
      FROM ${unnestRows(
        forms,
        'i',
        {
          id: ['uuid', (_, index) => ids[index]!],
          petition_id: ['uuid', (form) => form.petitionId],
          email: ['text', (form) => form.email],
          display_name: ['text', (form) => form.displayName],
          comment: ['text', (form) => form.comment],
          is_anonymous: ['bool', (form) => form.isAnonymous],
          contact_consent: ['bool', (form) => form.contactConsent],
          source: ['text', (form) => form.source],
          network_hash_hex: ['text', (form) => form.networkHash?.toString('hex') ?? null],
          token_hash_hex: ['text', (_, index) => tokenHash(linkToken(keyHex, ids[index]!)).toString('hex')],
        },
        'ordinal',
      )}
    ), ranked AS (
      SELECT g.*,
        row_number() OVER (PARTITION BY g.email_key ORDER BY g.ordinal) AS address_rank,
        row_number() OVER (PARTITION BY g.petition_id, g.email_key ORDER BY g.ordinal) AS petition_rank
      FROM given g
    ), input AS (
      -- The caps: the hour's rows (each mailed once within it), the day's emails (day_requests, migration 0039).
      SELECT r.*,
        (SELECT count(*) FROM guest_signatures g WHERE g.email_key = r.email_key AND g.requested_at > ${recent}) + r.address_rank
          <= ${EMAILS_PER_ADDRESS_PER_HOUR}
        AND (SELECT COALESCE(sum(g.day_requests), 0) FROM guest_signatures g WHERE g.email_key = r.email_key AND g.requested_at > ${today})
          + r.address_rank <= ${settings.emailsPerAddressPerDay} AS within_caps
      FROM ranked r
    ), written AS (
      INSERT INTO guest_signatures (id, petition_id, email, email_key, display_name, comment, is_anonymous, contact_consent, source, network_hash,
        token_hash, expires_at)
      SELECT i.id, i.petition_id, i.email, i.email_key, i.display_name, i.comment, i.is_anonymous, i.contact_consent, i.source,
        decode(i.network_hash_hex, 'hex'), decode(i.token_hash_hex, 'hex'), now() + make_interval(secs => ${settings.confirmationTtlMs / 1000})
      FROM input i
      WHERE i.petition_rank = 1 AND i.within_caps
        -- An address that had signed is told so at most once an hour per petition, like a confirmation.
        AND NOT EXISTS (SELECT 1 FROM guest_signatures g WHERE g.petition_id = i.petition_id AND g.email_key = i.email_key
          AND g.status = 'already_signed' AND g.requested_at > ${recent})
      -- One order for every batch, so that two batches wait for each other instead of deadlocking.
      ORDER BY i.petition_id, i.email_key
      ON CONFLICT (petition_id, email_key) WHERE status = 'pending' DO UPDATE
        SET requested_at = now(), email_due = true, email_queued_at = NULL, expires_at = EXCLUDED.expires_at, reminded_at = NULL,
          display_name = EXCLUDED.display_name, comment = EXCLUDED.comment, is_anonymous = EXCLUDED.is_anonymous,
          contact_consent = EXCLUDED.contact_consent,
          day_requests = CASE WHEN guest_signatures.requested_at > ${today} THEN guest_signatures.day_requests + 1 ELSE 1 END
        WHERE guest_signatures.requested_at <= ${recent}
      RETURNING petition_id, email_key, (xmax = 0) AS inserted
    ), over_limit AS (
      -- No reminder for what the address had asked until now (emails.ts reads this; migration 0039).
      INSERT INTO guest_mail_over_limit (email_key, at)
      SELECT DISTINCT email_key, now() FROM input WHERE NOT within_caps ORDER BY email_key
      ON CONFLICT (email_key) DO UPDATE SET at = EXCLUDED.at
    )
    -- Nothing written: the address's caps, or an open one (or an "already signed" notice) mailed within
    -- the hour. (The scans of guest_signatures here see the table as it was before this statement.)
    SELECT i.ordinal::int AS ordinal,
      CASE WHEN w.inserted THEN 'queued' WHEN w.inserted IS NOT NULL THEN 'requeued'
        WHEN NOT i.within_caps THEN 'address_ceiling'
        ELSE 'recently_mailed' END AS outcome
    FROM input i LEFT JOIN written w ON w.petition_id = i.petition_id AND w.email_key = i.email_key AND i.petition_rank = 1
    ORDER BY i.ordinal
  `);
  return rows.map((row) => row.outcome);
}
