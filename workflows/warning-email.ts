// Emails one administrator's warning to its user (id `warning-email-<warning id>`). The activity
// marks the warning emailed after sending and skips one already marked, so retries never resend.
import { proxyActivities } from '@temporalio/workflow';
import type { ModerationActivities } from '../activities/moderation.ts';
import { FAILURE_TYPES } from '../core/vocabulary.ts';

const { sendWarningEmail } = proxyActivities<ModerationActivities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [FAILURE_TYPES.mailRejected],
  },
});

export async function deliverWarningEmail({ warningId }: { warningId: string }): Promise<'sent' | 'skipped'> {
  return (await sendWarningEmail({ warningId })) ? 'sent' : 'skipped';
}
