// Recurring work is a Temporal Schedule, created once per cluster and visible in the Web UI under
// Schedules. Creating one that exists is not an error: every worker start calls this.
import { ScheduleAlreadyRunning } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { Temporal } from './client.ts';

type RecurringWorkflow = { scheduleId: string; workflowType: string; every: Duration };

const SCHEDULES: readonly RecurringWorkflow[] = [
  { scheduleId: 'purge-idempotency-keys', workflowType: 'purgeIdempotencyKeys', every: '1 hour' },
  { scheduleId: 'refresh-petition-rankings', workflowType: 'refreshPetitionRankings', every: '1 minute' },
  { scheduleId: 'fold-signature-rollups', workflowType: 'foldSignatureRollups', every: '1 minute' },
  // Examines every watch window (RALLY_FRAUD_WATCH_WINDOW) that ended since its last run.
  { scheduleId: 'fraud-watch', workflowType: 'fraudWatch', every: '1 minute' },
  { scheduleId: 'purge-oauth-artifacts', workflowType: 'purgeOAuthArtifacts', every: '1 hour' },
  // Whether a key is due is decided inside (monthly); hourly runs keep a missed month short.
  { scheduleId: 'rotate-oauth-signing-keys', workflowType: 'rotateOAuthSigningKeys', every: '1 hour' },
  { scheduleId: 'purge-abandoned-uploads', workflowType: 'purgeAbandonedUploads', every: '1 hour' },
  // Strips signers' details RALLY_SIGNER_DATA_RETENTION after a petition closed (nothing when `off`).
  { scheduleId: 'forget-signer-data', workflowType: 'forgetSignerData', every: '1 hour' },
  // Makes the outbox's coming day partitions and drops those past RALLY_EVENT_RETENTION.
  { scheduleId: 'roll-event-partitions', workflowType: 'rollEventPartitions', every: '1 hour' },
];

export function scheduleWorkflows(temporal: Temporal) {
  return {
    /** Creates each schedule of SCHEDULES that the cluster does not have yet (worker/main.ts, at every start). */
    async ensureSchedules(): Promise<void> {
      for (const schedule of SCHEDULES) {
        try {
          await temporal.client.schedule.create({
            scheduleId: schedule.scheduleId,
            spec: { intervals: [{ every: schedule.every }] },
            action: {
              type: 'startWorkflow',
              workflowType: schedule.workflowType,
              workflowId: schedule.scheduleId,
              taskQueue: temporal.taskQueue,
              args: [],
              memo: { summary: `${schedule.workflowType}, every ${schedule.every} (schedule ${schedule.scheduleId})` },
            },
            // A run still going when the next is due is not doubled; a missed run is made up once.
            policies: { overlap: 'SKIP', catchupWindow: schedule.every },
          });
        } catch (error) {
          if (!(error instanceof ScheduleAlreadyRunning)) throw error;
        }
      }
    },
  };
}
