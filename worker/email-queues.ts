// The outbox dispatcher's email step (worker/event-dispatcher.ts). Emails of two kinds wait in PostgreSQL until a round marks them queued: notification digests
// and guest signatures' confirmations. Each kind has one long-running workflow per task queue that mails them all, in batches; a round wakes it with one
// signal-with-start (orchestration/email-batches.ts), however many emails are waiting, so a viral petition never becomes one workflow per email.
import type { DatabasePool } from 'slonik';
import { queueDueEmails as queueGuestSignatureEmails } from '../core/guest-signatures/emails.ts';
import { queuePendingEmails } from '../core/notifications/emails.ts';
import type { EmailBatchWorkflows } from '../orchestration/email-batches.ts';
import type { Config } from '../platform/config.ts';

// Emails of each kind marked queued per round: one signal wakes their workflow, however many.
const EMAIL_QUEUE_BATCH = 5_000;

export type EmailQueueDependencies = { db: DatabasePool; workflows: EmailBatchWorkflows; config: Config };

/** One round of the email step: returns whether more emails of either kind are waiting. */
export function createEmailQueues(deps: EmailQueueDependencies): () => Promise<boolean> {
  // Emails are marked queued only after Temporal accepted the signal (core/notifications/emails.ts,
  // core/guest-signatures/emails.ts): a Temporal that cannot be reached leaves them for the next round.
  const wakeNotificationMailer = () => deps.workflows.wakeNotificationMailer({ windowMs: deps.config.notificationEmailWindowMs });
  const wakeGuestMailer = () => deps.workflows.wakeGuestSignatureMailer({ ttlMs: deps.config.signatureConfirmationTtlMs });
  return async () => {
    const notifications = await queuePendingEmails(deps.db, EMAIL_QUEUE_BATCH, wakeNotificationMailer);
    const guests = await queueGuestSignatureEmails(deps.db, EMAIL_QUEUE_BATCH, wakeGuestMailer);
    return notifications.more || guests.more;
  };
}
