// Recurring work is a Temporal Schedule, created once per cluster and visible in the Web UI under
// Schedules. Creating one that exists is not an error: every worker start calls this.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';

export const PURGE_IDEMPOTENCY_KEYS_SCHEDULE_ID = 'purge-idempotency-keys';

export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: PURGE_IDEMPOTENCY_KEYS_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: 'purgeIdempotencyKeys', workflowId: 'purge-idempotency-keys', taskQueue, args: [] },
      policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
