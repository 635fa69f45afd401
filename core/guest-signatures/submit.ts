// A guest's signing form, stored as a pending guest signature in one statement. Nothing is counted,
// listed or announced yet: the guest-signature-emails workflow mails the confirmation link (or, when
// the address had signed already, says so), and only the click makes a signature (confirm.ts).
//
// The answer is the same page whatever happens here (new, already pending, already signed, over a
// ceiling): the form must never tell a stranger whether an address has an account or has signed. So
// this reports what it did for the logs and metrics only, and the page does not look at it.
import { randomUUID } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { linkToken, tokenHash } from './tokens.ts';

/** At most one confirmation email (and one "you have already signed") per address and petition in this long. */
export const RESEND_AFTER_SECONDS = 60 * 60;
/** Confirmation emails one address may be sent per hour over every petition: no mail-bombing a stranger. */
export const EMAILS_PER_ADDRESS_PER_HOUR = 10;

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

export type SubmitOutcome = 'queued' | 'requeued' | 'recently_mailed' | 'address_ceiling';

const Stored = z.object({ id: z.string(), inserted: z.boolean() });

/**
 * Stores the form as a pending guest signature whose email is due, or, for an address with an open one
 * on this petition, asks for its email again once RESEND_AFTER_SECONDS have passed.
 */
export async function submitGuestSignature(db: CommonQueryMethods, keyHex: string, form: GuestSignatureForm, ttlMs: number): Promise<SubmitOutcome> {
  const id = randomUUID();
  const hash = tokenHash(linkToken(keyHex, id));
  const row = await db.maybeOne(sql.type(Stored)`
    INSERT INTO guest_signatures (id, petition_id, email, email_key, display_name, comment, is_anonymous, contact_consent, source, network_hash,
      token_hash, expires_at)
    SELECT ${id}, ${form.petitionId}, ${form.email}, rally_email_key(${form.email}), ${form.displayName}, ${form.comment}, ${form.isAnonymous},
      ${form.contactConsent}, ${form.source}, ${form.networkHash ? sql.binary(form.networkHash) : null}, ${sql.binary(hash)},
      now() + make_interval(secs => ${ttlMs / 1000})
    WHERE (SELECT count(*) FROM guest_signatures g
           WHERE g.email_key = rally_email_key(${form.email}) AND g.requested_at > now() - make_interval(secs => ${RESEND_AFTER_SECONDS}))
      < ${EMAILS_PER_ADDRESS_PER_HOUR}
      -- An address that had signed is told so at most once an hour per petition, like a confirmation.
      AND NOT EXISTS (SELECT 1 FROM guest_signatures g WHERE g.petition_id = ${form.petitionId} AND g.email_key = rally_email_key(${form.email})
        AND g.status = 'already_signed' AND g.requested_at > now() - make_interval(secs => ${RESEND_AFTER_SECONDS}))
    ON CONFLICT (petition_id, email_key) WHERE status = 'pending' DO UPDATE
      SET requested_at = now(), email_due = true, email_queued_at = NULL, expires_at = EXCLUDED.expires_at, reminded_at = NULL,
        display_name = EXCLUDED.display_name, comment = EXCLUDED.comment, is_anonymous = EXCLUDED.is_anonymous,
        contact_consent = EXCLUDED.contact_consent
      WHERE guest_signatures.requested_at <= now() - make_interval(secs => ${RESEND_AFTER_SECONDS})
    RETURNING id, (xmax = 0) AS inserted
  `);
  if (row) return row.inserted ? 'queued' : 'requeued';
  // Nothing written: an open one (or an "already signed" notice) mailed within the hour, or the address's ceiling.
  // Which one only matters to the logs.
  const open = await db.exists(sql.type(z.object({}))`
    SELECT 1 FROM guest_signatures WHERE petition_id = ${form.petitionId} AND email_key = rally_email_key(${form.email}) AND status = 'pending'
  `);
  return open ? 'recently_mailed' : 'address_ceiling';
}
