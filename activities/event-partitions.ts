// The rollEventPartitions schedule's step (core/events/partitions.ts does the work).
import type { DatabasePool } from 'slonik';
import { dropExpiredEventPartitions, ensureEventPartitions } from '../core/events/partitions.ts';

/** `retentionMs`: RALLY_EVENT_RETENTION. */
export function createEventPartitionActivities({ db, retentionMs }: { db: DatabasePool; retentionMs: number }) {
  return {
    /**
     * Makes the coming days' partitions of `events` and drops those past the retention; `now` (ISO)
     * stands in for the clock (the retention bench). Safe to repeat.
     */
    maintainEventPartitions: async ({ now }: { now?: string } = {}): Promise<{ made: number; dropped: string[] }> => {
      const at = now ? new Date(now) : new Date();
      const made = await ensureEventPartitions(db, at);
      return { made, dropped: await dropExpiredEventPartitions(db, at, retentionMs) };
    },
  };
}

export type EventPartitionActivities = ReturnType<typeof createEventPartitionActivities>;
