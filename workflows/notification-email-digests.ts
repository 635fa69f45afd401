// Every recipient's notification emails, in one workflow per task queue (id `notification-email-digests-<task queue>`), signal-with-started by the outbox
// dispatcher: one for all recipients, since a spread signing spike notifies thousands of creators and a workflow start per creator kept the Temporal server
// from webhook deliveries.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { NotificationEmailActivities } from '../activities/notification-emails.ts';

const { deliverDueNotificationEmails } = proxyActivities<NotificationEmailActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export const notificationsPendingSignal = defineSignal('notificationsPending');

export const notificationEmailDigestsWorkflowId = (taskQueue: string) => `notification-email-digests-${taskQueue}`;

// Rounds per run, so the history stays short; a busy run continues as new.
const MAX_ROUNDS = 200;

// Mails each recipient whose oldest pending email waited the window (RALLY_NOTIFICATION_EMAIL_WINDOW), so that
// a recipient's burst becomes one digest, sleeps until the next recipient is due, and ends once a window passes
// with nothing pending.
export async function notificationEmailDigests({ windowMs }: { windowMs: number }): Promise<{ rounds: number; recipients: number; emails: number }> {
  let signalled = false;
  setHandler(notificationsPendingSignal, () => {
    signalled = true;
  });
  let rounds = 0;
  let recipients = 0;
  let emails = 0;
  for (;;) {
    signalled = false;
    const sent = await deliverDueNotificationEmails({ windowMs });
    rounds += 1;
    recipients += sent.recipients;
    emails += sent.emails;
    // Nothing pending: a signal within a window means new notifications; none means we are done. A
    // signal that arrives in the same workflow task as the window's timer is applied first, so the
    // condition still sees it; the dispatcher sends one for every email it marks queued.
    const more = sent.nextDueMs !== null || signalled || (await condition(() => signalled, windowMs));
    if (!more) break;
    if (rounds >= MAX_ROUNDS) await continueAsNew<typeof notificationEmailDigests>({ windowMs });
    if (sent.nextDueMs) await sleep(sent.nextDueMs);
  }
  return { rounds, recipients, emails };
}
