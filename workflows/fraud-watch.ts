// The scheduled fraud watch (issue 11): started every minute by the Temporal Schedule `fraud-watch` (orchestration/schedules.ts; runs never overlap). It
// compares signing rates per petition, per network block and per email domain with their baseline and raises `fraud.suspected`, once per subject per window
// (core/moderation/fraud-watch.ts). All of it is one activity; the heartbeat timeout hands the work to another worker soon after one dies in the middle.
import { proxyActivities } from '@temporalio/workflow';
import type { FraudWatchActivities } from '../activities/fraud-watch.ts';

const { watchSigningRates } = proxyActivities<FraudWatchActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumAttempts: 5 },
});

export async function fraudWatch(): Promise<{ windows: number; alerts: number }> {
  return watchSigningRates();
}
