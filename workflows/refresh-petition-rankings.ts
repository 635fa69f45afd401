// Refreshes what GET /v1/petitions sorts by (popular, trending). Started every minute by the
// Temporal Schedule `refresh-petition-rankings` (orchestration/schedules.ts); runs never overlap.
import { proxyActivities } from '@temporalio/workflow';
import type { RankingActivities } from '../activities/rankings.ts';

const { rollUpSignatureCounts, refreshTrendingScores } = proxyActivities<RankingActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
});

// Twice the schedule's interval plus slack, so a late or skipped run loses nothing.
export const ROLL_UP_LOOKBACK_SECONDS = 180;

export async function refreshPetitionRankings(): Promise<{ counts: number; trending: number }> {
  const counts = await rollUpSignatureCounts({ lookbackSeconds: ROLL_UP_LOOKBACK_SECONDS });
  const trending = await refreshTrendingScores();
  return { counts, trending };
}
