// The rankings schedule's activities (core/petitions/rankings.ts does the work).
import type { DatabasePool } from 'slonik';
import { refreshTrendingScores, rollUpSignatureCounts } from '../core/petitions/rankings.ts';

export function createRankingActivities({ db }: { db: DatabasePool }) {
  return {
    /** Copies the live count into petitions.signature_count for petitions signed or unsigned lately. */
    rollUpSignatureCounts: ({ lookbackSeconds }: { lookbackSeconds: number }): Promise<number> => rollUpSignatureCounts(db, lookbackSeconds),
    /** Recomputes trending scores of petitions signed in the window, and lets the others fall to zero. */
    refreshTrendingScores: (): Promise<number> => refreshTrendingScores(db),
  };
}

export type RankingActivities = ReturnType<typeof createRankingActivities>;
