// The outbox dispatcher's email step (worker/event-dispatcher.ts). Emails of two kinds wait in
// PostgreSQL until a round marks them queued: notification digests and guest signatures'
// confirmations. Each kind has one long-running workflow per task queue that mails them all, in
// batches; a round wakes it with one signal-with-start, however many emails are waiting, so a viral
// petition never becomes one workflow per email.
import type { Client, SignalDefinition } from '@temporalio/client';
import type { DatabasePool } from 'slonik';
import { queueDueEmails as queueGuestSignatureEmails } from '../core/guest-signatures/emails.ts';
import { queuePendingEmails } from '../core/notifications/emails.ts';
import type { Config } from '../platform/config.ts';
import {
  guestSignatureEmails,
  guestSignatureEmailsDueSignal,
  guestSignatureEmailsWorkflowId,
  notificationEmailDigests,
  notificationEmailDigestsWorkflowId,
  notificationsPendingSignal,
} from '../workflows/index.ts';
import { RallyEntityType } from '../workflows/search-attributes.ts';

// Emails of each kind marked queued per round: one signal wakes their workflow, however many.
const EMAIL_QUEUE_BATCH = 5_000;

export type EmailQueueDependencies = { db: DatabasePool; temporal: Client; config: Config; deadlineMs: number };

/** One round of the email step: returns whether more emails of either kind are waiting. */
export function createEmailQueues(deps: EmailQueueDependencies): () => Promise<boolean> {
  // Emails are marked queued only after Temporal accepted the signal (core/notifications/emails.ts,
  // core/guest-signatures/emails.ts): a Temporal that cannot be reached leaves them for the next round.
  function mailerWaker<Input>(
    workflow: (input: Input) => Promise<unknown>,
    workflowId: string,
    input: Input,
    signal: SignalDefinition<[]>,
    entityType: string,
  ) {
    return async (): Promise<void> => {
      await deps.temporal.withDeadline(Date.now() + deps.deadlineMs, () =>
        deps.temporal.workflow.signalWithStart(workflow, {
          workflowId,
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          taskQueue: deps.config.temporal.taskQueue,
          args: [input],
          signal,
          typedSearchAttributes: [{ key: RallyEntityType, value: entityType }],
        }),
      );
    };
  }
  const wakeNotificationMailer = mailerWaker(
    notificationEmailDigests,
    notificationEmailDigestsWorkflowId(deps.config.temporal.taskQueue),
    { windowMs: deps.config.notificationEmailWindowMs },
    notificationsPendingSignal,
    'notification_emails',
  );
  const wakeGuestMailer = mailerWaker(
    guestSignatureEmails,
    guestSignatureEmailsWorkflowId(deps.config.temporal.taskQueue),
    { ttlMs: deps.config.signatureConfirmationTtlMs },
    guestSignatureEmailsDueSignal,
    'guest_signature_emails',
  );
  return async () => {
    const notifications = await queuePendingEmails(deps.db, EMAIL_QUEUE_BATCH, wakeNotificationMailer);
    const guests = await queueGuestSignatureEmails(deps.db, EMAIL_QUEUE_BATCH, wakeGuestMailer);
    return notifications.more || guests.more;
  };
}
