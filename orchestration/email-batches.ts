// The outbox dispatcher's email step (worker/email-queues.ts): each kind of queued email has one
// long-running mailer workflow per task queue, woken by one signal-with-start however many emails a
// round queued, so a viral petition never becomes one workflow per email.
import type { SignalDefinition } from '@temporalio/client';
import {
  guestSignatureEmails,
  guestSignatureEmailsDueSignal,
  guestSignatureEmailsWorkflowId,
  notificationEmailDigests,
  notificationEmailDigestsWorkflowId,
  notificationsPendingSignal,
} from '../workflows/index.ts';
import { RallyEntityType } from '../workflows/search-attributes.ts';
import { promptly, type Temporal } from './client.ts';

export function emailBatchWorkflows(temporal: Temporal) {
  // A mailer that finished (nothing left to mail) is started again by the next wake-up.
  function wake<Input>(workflow: (input: Input) => Promise<unknown>, workflowId: string, input: Input, signal: SignalDefinition<[]>, entityType: string) {
    return promptly(temporal, () =>
      temporal.client.workflow.signalWithStart(workflow, {
        workflowId,
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        taskQueue: temporal.taskQueue,
        args: [input],
        signal,
        typedSearchAttributes: [{ key: RallyEntityType, value: entityType }],
      }),
    );
  }
  return {
    /** Notification emails were queued: the digest mailer (notification-email-digests-<task queue>) gathers them per `windowMs`. */
    async wakeNotificationMailer(input: { windowMs: number }): Promise<void> {
      const workflowId = notificationEmailDigestsWorkflowId(temporal.taskQueue);
      await wake(notificationEmailDigests, workflowId, input, notificationsPendingSignal, 'notification_emails');
    },

    /** Guest signatures' confirmation emails were queued: their mailer (guest-signature-emails-<task queue>) sends them. */
    async wakeGuestSignatureMailer(input: { ttlMs: number }): Promise<void> {
      await wake(guestSignatureEmails, guestSignatureEmailsWorkflowId(temporal.taskQueue), input, guestSignatureEmailsDueSignal, 'guest_signature_emails');
    },
  };
}

export type EmailBatchWorkflows = ReturnType<typeof emailBatchWorkflows>;
