// Keeps the outbox's day partitions (issue 43): makes the coming week's and drops those older than
// RALLY_EVENT_RETENTION. Started by the Temporal Schedule `roll-event-partitions` (orchestration/schedules.ts)
// every hour, so a failed run is retried long before the days made ahead run out.
import { log, proxyActivities } from '@temporalio/workflow';
import type { EventPartitionActivities } from '../activities/event-partitions.ts';

const { maintainEventPartitions } = proxyActivities<EventPartitionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', maximumInterval: '5 minutes' },
});

export async function rollEventPartitions(): Promise<{ made: number; dropped: string[] }> {
  const result = await maintainEventPartitions({});
  log.info('rolled event partitions', result);
  return result;
}
