// A timed suspension (id `user-suspension-<user id>`): a durable timer until `until`, then the
// suspension is lifted, unless it was lifted or replaced meanwhile (the activity compares the
// suspension's start). A newer timed suspension terminates this run and starts its own.
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { ModerationActivities } from '../activities/moderation.ts';

const { endSuspension } = proxyActivities<ModerationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export type UserSuspensionInput = { userId: string; suspendedAt: string; until: string };

export async function userSuspension({ userId, suspendedAt, until }: UserSuspensionInput): Promise<'lifted' | 'unchanged'> {
  // Workflow time is replay-safe: Date.now() is the time of the current workflow task.
  const wait = Date.parse(until) - Date.now();
  if (wait > 0) await sleep(wait);
  return (await endSuspension({ userId, suspendedAt })) ? 'lifted' : 'unchanged';
}
