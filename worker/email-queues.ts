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
// Each mailer is woken at most once a second per worker. Its workflow mails in windows and batches, so
// a wake-up per dispatch round adds Temporal work and no speed: a signing spike spread over many petitions
// notifies creators in nearly every round, and woke the digest workflow 30 times a second (a
// signal-with-start and a workflow task each). Emails wait in PostgreSQL, not yet queued, until the next.
const WAKE_INTERVAL_MS = 1_000;

export type EmailQueueDependencies = { db: DatabasePool; workflows: EmailBatchWorkflows; config: Config };

type Queue = (wake: () => Promise<void>) => Promise<{ more: boolean }>;

/** A kind's round, skipped while its mailer was woken less than WAKE_INTERVAL_MS ago; answers whether more are waiting. */
function pacedQueue(queue: Queue, wake: () => Promise<void>): () => Promise<boolean> {
  let wokenAt = -Infinity;
  const wakeAndNote = async () => {
    await wake();
    wokenAt = Date.now();
  };
  return async () => (Date.now() - wokenAt < WAKE_INTERVAL_MS ? false : (await queue(wakeAndNote)).more);
}

/** One round of the email step: returns whether more emails of either kind are waiting. */
export function createEmailQueues(deps: EmailQueueDependencies): () => Promise<boolean> {
  // Emails are marked queued only after Temporal accepted the signal (core/notifications/emails.ts,
  // core/guest-signatures/emails.ts): a Temporal that cannot be reached leaves them for the next round.
  const notifications = pacedQueue(
    (wake) => queuePendingEmails(deps.db, EMAIL_QUEUE_BATCH, wake),
    () => deps.workflows.wakeNotificationMailer({ windowMs: deps.config.notificationEmailWindowMs }),
  );
  const guests = pacedQueue(
    (wake) => queueGuestSignatureEmails(deps.db, EMAIL_QUEUE_BATCH, wake),
    () => deps.workflows.wakeGuestSignatureMailer({ ttlMs: deps.config.signatureConfirmationTtlMs }),
  );
  return async () => {
    const moreNotifications = await notifications();
    return (await guests()) || moreNotifications;
  };
}
