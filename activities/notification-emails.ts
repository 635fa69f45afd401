// The email channel of notifications: sends what is pending for one user, one email per
// notification, or a single digest when more than DIGEST_THRESHOLD gathered in the window. Every
// email carries a one-click unsubscribe link (List-Unsubscribe + List-Unsubscribe-Post, RFC 8058):
// for the notification's type, or for all notification email from a digest.
import type { DatabasePool } from 'slonik';
import { lockPendingEmails, markEmailed, type PendingEmail } from '../core/notifications/emails.ts';
import { unsubscribeToken, unsubscribeUrl } from '../core/notifications/unsubscribe.ts';
import type { Config } from '../platform/config.ts';
import { createMailer, type Mailer, type MailMessage } from '../platform/mailer.ts';

export const DIGEST_THRESHOLD = 3;

export type NotificationEmailDependencies = { db: DatabasePool; mailer: Mailer; publicUrl: string; encryptionKey: string };

export function createNotificationEmailActivities({ db, mailer, publicUrl, encryptionKey }: NotificationEmailDependencies) {
  const unsubscribeLink = (userId: string, scope: string) => unsubscribeUrl(publicUrl, unsubscribeToken(encryptionKey, userId, scope));
  const withUnsubscribe = (message: Omit<MailMessage, 'headers'>, link: string): MailMessage => ({
    ...message,
    headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  });

  function single(userId: string, item: PendingEmail): MailMessage {
    const link = unsubscribeLink(userId, item.type);
    return withUnsubscribe({
      to: item.email,
      subject: item.title,
      text: [item.body, '', `See all your notifications at ${publicUrl}.`, `Stop these emails (${item.type}): ${link}`].join('\n'),
    }, link);
  }

  function digest(userId: string, items: PendingEmail[]): MailMessage {
    const link = unsubscribeLink(userId, '*');
    const types = [...new Set(items.map((item) => item.type))];
    return withUnsubscribe({
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
    }, link);
  }

  return {
    /** Safe to repeat: what was mailed is marked in the same transaction that locked it. */
    async deliverNotificationEmails({ userId }: { userId: string }): Promise<{ emails: number; notifications: number; digest: boolean }> {
      return db.transaction(async (tx) => {
        const pending = await lockPendingEmails(tx, userId);
        const wanted = pending.filter((item) => item.wants_email);
        const isDigest = wanted.length > DIGEST_THRESHOLD;
        const messages = isDigest ? [digest(userId, wanted)] : wanted.map((item) => single(userId, item));
        for (const message of messages) await mailer.send(message);
        await markEmailed(tx, pending.map((item) => item.id));
        return { emails: messages.length, notifications: wanted.length, digest: isDigest };
      });
    },
  };
}

export type NotificationEmailActivities = ReturnType<typeof createNotificationEmailActivities>;

export function notificationEmailDependencies(db: DatabasePool, config: Config): NotificationEmailDependencies {
  return { db, mailer: createMailer(config.mail), publicUrl: config.publicUrl, encryptionKey: config.encryptionKey };
}
