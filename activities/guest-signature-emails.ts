// The emails of guest signing, sent in batches by the guest-signature-emails workflow: each call mails the due confirmations (or, to an address that had signed
// already, a note without a link), the due reminders (the same link again, halfway to the deadline), and expires what is overdue. Safe to repeat: what was
// mailed is marked in the transaction that locked it.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import {
  dropMail,
  expireOverdue,
  lockDueConfirmations,
  lockDueReminders,
  markMailed,
  markReminded,
  nextDueMs,
  type GuestEmail,
} from '../core/guest-signatures/emails.ts';
import { mailStopKey, mailStopToken, mailStopUrl, stoppedAddresses } from '../core/guest-signatures/mail-stop.ts';
import { confirmationReference, confirmationUrl } from '../core/guest-signatures/tokens.ts';
import { nameInMail } from '../core/users/name-in-mail.ts';
import type { Config } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { createMailer, isRecipientRefused, type Mailer, type MailMessage } from '../platform/mailer.ts';

// Emails per statement and activity call: a burst of thousands goes out in calls well within their timeout.
const EMAILS_PER_CALL = 200;
const MAIL_CONCURRENCY = 8;
const EXPIRE_PER_CALL = 5_000;

const log = createLogger('guest-signature-emails');

export type GuestSignatureEmailDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string; encryptionKey: string };

// Every email also offers to set a password (/signup?email=…, the browser sign-up page), as a guest is a user
// without one, and "never email me again" (core/guest-signatures/mail-stop.ts, also as RFC 8058 one-click
// List-Unsubscribe): nothing more goes to an address that asked so, and its rows are done with.
export function createGuestSignatureEmailActivities({ db, mailer, publicUrl, encryptionKey }: GuestSignatureEmailDependencies) {
  const stopKey = mailStopKey(encryptionKey);
  const setPassword = (email: string) =>
    `Want to sign in next time? Set a password for your Rally account: ${publicUrl}/signup?email=${encodeURIComponent(email)}`;
  const petitionLink = (row: GuestEmail) => `${publicUrl}/p/${row.petition_slug}`;
  // Whoever filled the form chose the name: plain words only (it may be a stranger's inbox).
  const hello = (row: GuestEmail) => `Hello ${nameInMail(row.display_name, 'there')},`;

  function message(row: GuestEmail, kind: 'confirm' | 'remind'): MailMessage {
    const stop = mailStopUrl(publicUrl, mailStopToken(stopKey, row.email_key));
    const closing = ['', setPassword(row.email), '', `Never email me again (no more emails like this to this address): ${stop}`];
    const headers = { 'List-Unsubscribe': `<${stop}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
    if (row.already_signed)
      return {
        to: row.email,
        subject: `You have already signed: ${row.petition_title}`,
        text: [
          hello(row),
          '',
          `Someone (probably you) asked to sign "${row.petition_title}" with this address, but this address has already signed it.`,
          'Your signature is counted once; nothing has changed and there is nothing to confirm.',
          '',
          petitionLink(row),
          ...closing,
        ].join('\n'),
        headers,
      };
    const link = confirmationUrl(publicUrl, confirmationReference(encryptionKey, row.id));
    return {
      to: row.email,
      subject: `${kind === 'remind' ? 'Reminder: confirm' : 'Confirm'} your signature: ${row.petition_title}`,
      text: [
        hello(row),
        '',
        `${kind === 'remind' ? 'Your signature is not counted yet. ' : ''}To sign "${row.petition_title}", confirm with this link:`,
        '',
        link,
        '',
        `The link works until ${new Date(row.expires_at).toUTCString()}. If you did not ask to sign, ignore this email: nothing is signed without the click.`,
        ...closing,
      ].join('\n'),
      headers,
    };
  }

  /** Mails what `lock` finds and marks what went out (or was refused for good); throws when the mail server is down. */
  async function mailBatch(
    lock: (tx: CommonQueryMethods) => Promise<readonly GuestEmail[]>,
    kind: 'confirm' | 'remind',
    mark: (tx: CommonQueryMethods, rows: GuestEmail[]) => Promise<void>,
  ) {
    return db.transaction(async (tx) => {
      const locked = await lock(tx);
      const stopped = await stoppedAddresses(
        tx,
        stopKey,
        locked.map((row) => row.email_key),
      );
      const rows = locked.filter((row) => !stopped.has(row.email_key));
      if (rows.length < locked.length)
        await dropMail(
          tx,
          locked.filter((row) => stopped.has(row.email_key)).map((row) => row.id),
        );
      const done: GuestEmail[] = [];
      const failures: unknown[] = [];
      for (let index = 0; index < rows.length; index += MAIL_CONCURRENCY) {
        const slice = rows.slice(index, index + MAIL_CONCURRENCY);
        const outcomes = await Promise.allSettled(slice.map((row) => mailer.send(message(row, kind))));
        outcomes.forEach((outcome, at) => {
          // A refused address never takes mail: it is done with, not retried.
          if (outcome.status === 'fulfilled' || isRecipientRefused(outcome.reason)) done.push(slice[at]!);
          else failures.push(outcome.reason);
        });
      }
      if (done.length > 0) await mark(tx, done);
      if (failures.length > 0 && done.length === 0) throw failures[0];
      if (failures.length > 0) log.warn('some guest signature emails failed; retrying them later', { failed: failures.length });
      return done.length;
    });
  }

  return {
    async mailGuestSignatureEmails({ ttlMs }: { ttlMs: number }) {
      const confirmations = await mailBatch((tx) => lockDueConfirmations(tx, EMAILS_PER_CALL), 'confirm', markMailed);
      const reminders = await mailBatch(
        (tx) => lockDueReminders(tx, ttlMs, EMAILS_PER_CALL),
        'remind',
        (tx, rows) =>
          markReminded(
            tx,
            rows.map((row) => row.id),
          ),
      );
      const expired = await expireOverdue(db, EXPIRE_PER_CALL, ttlMs);
      return { confirmations, reminders, expired, nextDueMs: await nextDueMs(db, ttlMs) };
    },
  };
}

export type GuestSignatureEmailActivities = ReturnType<typeof createGuestSignatureEmailActivities>;

export function guestSignatureEmailDependencies(db: DatabasePool, config: Config): GuestSignatureEmailDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl, encryptionKey: config.encryptionKey };
}
