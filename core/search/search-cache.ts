// Search and suggestions as each API process serves them: an answer asked again within a second comes from memory, so a popular query costs the database one
// search a second however many ask. As for the public list pages (read-cache.ts), an answer is refreshed in the background and forgotten when any petition
// changes (rally_petition_changed, migration 0020); counts and rankings may lag by that second, while the petition's own page shows its live count.
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
