// Every guest signature's emails, in one workflow per task queue (id `guest-signature-emails-<task queue>`), never one per guest signature: a viral petition
// brings thousands of guests a second. Signal-with-started by the outbox dispatcher when confirmations are due; each round mails a batch (confirmations, the
// reminder halfway to RALLY_SIGNATURE_CONFIRMATION_TTL, expiries), sleeps until the next is due or a signal, and ends once nothing is open.
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { GuestSignatureEmailActivities } from '../activities/guest-signature-emails.ts';

const { mailGuestSignatureEmails } = proxyActivities<GuestSignatureEmailActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export const guestSignatureEmailsDueSignal = defineSignal('guestSignatureEmailsDue');

export const guestSignatureEmailsWorkflowId = (taskQueue: string) => `guest-signature-emails-${taskQueue}`;

// Rounds per run, so the history stays short; a busy run continues as new.
const MAX_ROUNDS = 200;

export async function guestSignatureEmails({
  ttlMs,
}: {
  ttlMs: number;
}): Promise<{ rounds: number; confirmations: number; reminders: number; expired: number }> {
  let signalled = false;
  setHandler(guestSignatureEmailsDueSignal, () => {
    signalled = true;
  });
  const totals = { rounds: 0, confirmations: 0, reminders: 0, expired: 0 };
  for (;;) {
    signalled = false;
    const round = await mailGuestSignatureEmails({ ttlMs });
    totals.rounds += 1;
    totals.confirmations += round.confirmations;
    totals.reminders += round.reminders;
    totals.expired += round.expired;
    // Nothing open: done, unless a signal came meanwhile. Otherwise wait for the next deadline or a signal.
    if (round.nextDueMs === null && !signalled) break;
    if (totals.rounds >= MAX_ROUNDS) await continueAsNew<typeof guestSignatureEmails>({ ttlMs });
    if (round.nextDueMs !== 0 && !signalled) await condition(() => signalled, round.nextDueMs ?? 1);
  }
  return totals;
}
