// Petition analytics as each API process serves them, kept in memory until the rollups change: the fold and the page-view flush announce each change on
// rally_rollups_changed (migration 0022), so a polled dashboard or a viral hour costs one read per fold rather than one per view. Who may see the answer is
// decided on every request before the cache is asked (routes).
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import { createAnswerCache } from '../../platform/answer-cache.ts';
import type { Logger } from '../../platform/logger.ts';
import { petitionAnalytics, type Granularity } from './petition-analytics.ts';

export const ROLLUPS_CHANGED_CHANNEL = 'rally_rollups_changed';

// The announcement is what keeps answers current; the age limits only bound what a lost one costs.
const FRESH_MS = 30_000;
const MAX_AGE_MS = 300_000;
/** Up to 732 daily points each: a few hundred answers stay within a few megabytes. */
const MAX_ANSWERS = 300;

export type PetitionAnalytics = Awaited<ReturnType<typeof petitionAnalytics>>;
export type CachedPetitionAnalytics = (petitionId: string, range: { start: string; end: string }, granularity: Granularity) => Promise<PetitionAnalytics>;

export async function createCachedPetitionAnalytics(deps: {
  db: DatabasePool;
  notifications: NotificationListener;
  log: Logger;
}): Promise<CachedPetitionAnalytics> {
  const answers = createAnswerCache<PetitionAnalytics>({
    max: MAX_ANSWERS,
    freshMs: FRESH_MS,
    maxAgeMs: MAX_AGE_MS,
    name: 'petition analytics',
    log: deps.log,
  });
  await deps.notifications.listen(ROLLUPS_CHANGED_CHANNEL, () => answers.forgetAll());
  deps.notifications.onReconnect(() => answers.forgetAll());
  return (petitionId, range, granularity) =>
    answers.get(JSON.stringify([petitionId, range.start, range.end, granularity]), () => petitionAnalytics(deps.db, petitionId, range, granularity));
}
