// The email channel of notifications: sends what is pending for each recipient whose oldest pending email waited a window, one email per notification, or a
// single digest when more than DIGEST_THRESHOLD gathered. Every email carries a one-click unsubscribe link (List-Unsubscribe + List-Unsubscribe-Post, RFC
// 8058): for the notification's type, or for all notification email from a digest.
import type { DatabasePool } from 'slonik';
import { dueRecipients, lockPendingEmails, markEmailed, type PendingEmail } from '../core/notifications/emails.ts';
import { unsubscribeToken, unsubscribeUrl } from '../core/notifications/unsubscribe.ts';
import type { Config } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { createMailer, isRecipientRefused, type Mailer, type MailMessage } from '../platform/mailer.ts';

export const DIGEST_THRESHOLD = 3;
// Recipients served per activity call, and mailed at once: a burst of thousands goes out in calls
// that each finish well within their timeout.
const RECIPIENTS_PER_CALL = 100;
const MAIL_CONCURRENCY = 4;
// A recipient whose mail failed while others' went out is tried again this soon (or within a shorter
// window), without holding up the rest: the workflow sleeps until then, and a notification made
// meanwhile must still go out a window after it was made.
const RETRY_FAILED_MS = 60_000;
// The workflow is woken at most this often while recipients are pending: a spike spread over many
// petitions notifies thousands of creators whose windows end moments apart, and waking for each cost
// the Temporal server a timer and an activity per recipient. A recipient gets their email at most
// this long after their window.
const MIN_PAUSE_MS = 1_000;

const log = createLogger('notification-emails');

export type NotificationEmailDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string; encryptionKey: string };

export function createNotificationEmailActivities({ db, mailer, publicUrl, encryptionKey }: NotificationEmailDependencies) {
  const unsubscribeLink = (userId: string, scope: string) => unsubscribeUrl(publicUrl, unsubscribeToken(encryptionKey, userId, scope));
  const withUnsubscribe = (message: Omit<MailMessage, 'headers'>, link: string): MailMessage => ({
    ...message,
    headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  });

  function single(userId: string, item: PendingEmail): MailMessage {
    const link = unsubscribeLink(userId, item.type);
    return withUnsubscribe(
      {
        to: item.email,
        subject: item.title,
        text: [item.body, '', `See all your notifications at ${publicUrl}.`, `Stop these emails (${item.type}): ${link}`].join('\n'),
      },
      link,
    );
  }

  function digest(userId: string, items: PendingEmail[]): MailMessage {
    const link = unsubscribeLink(userId, '*');
    const types = [...new Set(items.map((item) => item.type))];
    return withUnsubscribe(
      {
        to: items[0]!.email,
        subject: `${items.length} new notifications on Rally`,
        text: [
          `Hello ${items[0]!.display_name}, here is what happened:`,
          '',
          ...items.map((item) => `- ${item.title}`),
          '',
          ...types.map((type) => `Stop ${type} emails: ${unsubscribeLink(userId, type)}`),
          `Stop all notification emails: ${link}`,
        ].join('\n'),
      },
      link,
    );
  }

  /** Safe to repeat: what was mailed is marked in the same transaction that locked it. */
  function mailPending(userId: string): Promise<{ emails: number; notifications: number; digest: boolean }> {
    return db.transaction(async (tx) => {
      const pending = await lockPendingEmails(tx, userId);
      const wanted = pending.filter((item) => item.wants_email);
      const isDigest = wanted.length > DIGEST_THRESHOLD;
      const messages = isDigest ? [digest(userId, wanted)] : wanted.map((item) => single(userId, item));
      for (const message of messages) await mailer.send(message);
      await markEmailed(
        tx,
        pending.map((item) => item.id),
      );
      return { emails: messages.length, notifications: wanted.length, digest: isDigest };
    });
  }

  return {
    /** One recipient's pending emails (the per-recipient workflow of earlier releases). */
    async deliverNotificationEmails({ userId }: { userId: string }) {
      return mailPending(userId);
    },

    /**
     * Mails the recipients that are due; answers how long until the next one is (null: none pending).
     * When every recipient failed and not only because the server refused their addresses (the mail
     * server is down) it throws, for Temporal's backed-off retry; a refused address alone must not
     * stretch that backoff over everyone else's mail.
     */
    async deliverDueNotificationEmails({
      windowMs,
    }: {
      windowMs: number;
    }): Promise<{ recipients: number; emails: number; failed: number; nextDueMs: number | null }> {
      const due = await dueRecipients(db, windowMs, RECIPIENTS_PER_CALL);
      let emails = 0;
      const failures: unknown[] = [];
      for (let index = 0; index < due.userIds.length; index += MAIL_CONCURRENCY) {
        const outcomes = await Promise.allSettled(due.userIds.slice(index, index + MAIL_CONCURRENCY).map(mailPending));
        for (const outcome of outcomes) {
          if (outcome.status === 'fulfilled') emails += outcome.value.emails;
          else failures.push(outcome.reason);
        }
      }
      if (failures.length > 0 && failures.length === due.userIds.length && !failures.every(isRecipientRefused)) throw failures[0];
      // The mail server's message often names the address, so only the kind of failure is logged.
      if (failures.length > 0)
        log.warn('notification emails failed for some recipients; retrying them later', {
          failed: failures.length,
          error: failures[0] instanceof Error ? failures[0].name : typeof failures[0],
        });
      const retryMs = Math.min(RETRY_FAILED_MS, windowMs);
      const nextDueMs = failures.length > 0 ? Math.min(due.nextDueMs ?? retryMs, retryMs) : due.nextDueMs;
      // 0 (more are due now than one call takes) and null (none pending) pass unchanged.
      const pause = nextDueMs ? Math.max(nextDueMs, Math.min(MIN_PAUSE_MS, windowMs)) : nextDueMs;
      return { recipients: due.userIds.length, emails, failed: failures.length, nextDueMs: pause };
    },
  };
}

export type NotificationEmailActivities = ReturnType<typeof createNotificationEmailActivities>;

export function notificationEmailDependencies(db: DatabasePool, config: Config): NotificationEmailDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl, encryptionKey: config.encryptionKey };
}
