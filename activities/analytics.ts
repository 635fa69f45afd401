// The rollup fold as an activity: batch after batch until the queue is empty or the run's budget
// is spent, heartbeating between batches. Each batch commits on its own (core/analytics/fold.ts),
// so a retry after a crash resumes where the last committed batch left off.
import { heartbeat } from '@temporalio/activity';
import type { DatabasePool } from 'slonik';
import { foldSignatureBatch } from '../core/analytics/fold.ts';

export function createAnalyticsActivities({ db }: { db: DatabasePool }) {
  return {
    async foldSignatureRollups({ batchSize, maxBatches }: { batchSize: number; maxBatches: number }): Promise<{ folded: number; drained: boolean }> {
      let folded = 0;
      for (let batch = 0; batch < maxBatches; batch += 1) {
        const count = await foldSignatureBatch(db, batchSize);
        folded += count;
        heartbeat({ folded });
        if (count < batchSize) return { folded, drained: true };
      }
      return { folded, drained: false };
    },
  };
}

export type AnalyticsActivities = ReturnType<typeof createAnalyticsActivities>;
