// One user's notification emails (id `notification-emails-<user id>`), as earlier releases sent them; notificationEmailDigests
// (./notification-email-digests.ts) now serves every recipient, and this stays registered only so that runs started before the upgrade finish. It lets the
// window (RALLY_NOTIFICATION_EMAIL_WINDOW) pass so that a burst becomes one digest, then sends what is pending, and ends once a window passes with nothing new.
import { condition, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { NotificationEmailActivities } from '../activities/notification-emails.ts';

const { deliverNotificationEmails } = proxyActivities<NotificationEmailActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

const emailsPendingSignal = defineSignal('emailsPending');

export async function notificationEmails({ userId, windowMs }: { userId: string; windowMs: number }): Promise<{ rounds: number; emails: number }> {
  let pending = true;
  setHandler(emailsPendingSignal, () => {
    pending = true;
  });
  let rounds = 0;
  let emails = 0;
  // Bounded so the history stays short; a later signal starts a fresh run.
  while (pending && rounds < 50) {
    pending = false;
    await sleep(windowMs);
    const sent = await deliverNotificationEmails({ userId });
    rounds += 1;
    emails += sent.emails;
    if (!pending) await condition(() => pending, windowMs);
  }
  return { rounds, emails };
}
