// Search and suggestions as each API process serves them: the same question asked again within a
// second is answered from memory, so a popular query (a campaign's link, a typed prefix everyone
// types) costs the database one search a second however many people ask. The same rule as the
// public list pages (core/petitions/read-cache.ts): an answer is at most a second old while it is
// being asked for, refreshed in the background meanwhile, and forgotten the moment the database
// announces a change to any petition (rally_petition_changed, migration 0020), so a petition that is
// unpublished, made private or deleted leaves every cached answer at once. Counts and rankings may
// lag by that second; the petition's own page shows its live count.
import type { NotificationListener } from '../../db/notifications.ts';
import { createAnswerCache } from '../../platform/answer-cache.ts';
import type { Logger } from '../../platform/logger.ts';
import { PETITION_CHANGED_CHANNEL } from '../petitions/read-cache.ts';
import type { SearchDependencies } from './bounded.ts';
import { searchPetitions, type PetitionSearchQuery, type SearchPage } from './petition-search.ts';
import { suggestTitles, type Suggestion } from './suggest.ts';

const FRESH_MS = 1_000;
/** A question nobody asked for this long is searched again before it is answered. */
const MAX_AGE_MS = 10_000;
const MAX_ANSWERS = 2_000;

export type PetitionSearch = {
  search(query: PetitionSearchQuery): Promise<SearchPage>;
  suggest(prefix: string, limit: number): Promise<readonly Suggestion[]>;
};

export async function createPetitionSearch(deps: SearchDependencies & { notifications: NotificationListener; log: Logger }): Promise<PetitionSearch> {
  const settings = { max: MAX_ANSWERS, freshMs: FRESH_MS, maxAgeMs: MAX_AGE_MS, log: deps.log };
  const pages = createAnswerCache<SearchPage>({ ...settings, name: 'search answer' });
  const suggestions = createAnswerCache<readonly Suggestion[]>({ ...settings, name: 'suggestions' });
  const forgetAll = () => {
    pages.forgetAll();
    suggestions.forgetAll();
  };
  await deps.notifications.listen(PETITION_CHANGED_CHANNEL, forgetAll);
  // Announcements sent while the connection was down are lost: start over.
  deps.notifications.onReconnect(forgetAll);

  return {
    search(query) {
      const key = JSON.stringify([
        query.q ?? null,
        query.category ?? null,
        query.country ?? null,
        query.status ?? null,
        query.tag ?? null,
        query.sort,
        query.cursor ?? null,
        query.limit,
      ]);
      return pages.get(key, () => searchPetitions(deps, query));
    },
    suggest(prefix, limit) {
      return suggestions.get(JSON.stringify([prefix, limit]), () => suggestTitles(deps, prefix, limit));
    },
  };
}
