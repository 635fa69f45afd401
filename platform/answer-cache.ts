// A bounded in-process cache of computed answers (a search page, a petition's analytics) for reads that many clients repeat and that may lag their sources by a
// stated moment, on lru-cache's fetchMethod: each key is computed by one load at a time however many requests ask for it. Failed loads are never stored: the
// next request tries again, and a failed background refresh keeps the stale answer.
import { LRUCache } from 'lru-cache';
import { createBoundedLru } from './bounded-lru.ts';
import type { Logger } from './logger.ts';

export type AnswerCache<V> = {
  /** The answer for `key`: a cached one within the freshness rules, otherwise `load()`'s. */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Forget every answer, e.g. when the sources announce a change. */
  forgetAll(): void;
};

export type AnswerCacheOptions = {
  /** How many answers are kept, least recently used dropped first. */
  max: number;
  /** Served as is until this old (ms). */
  freshMs: number;
  /** Served while a refresh runs until this old (ms); loaded before it is served after that. */
  maxAgeMs: number;
  /** What the cache holds, for the warning when a background refresh fails. */
  name: string;
  log: Pick<Logger, 'warn'>;
  /** The clock, in ms (tests turn it by hand). */
  now?: () => number;
};

type Load<V> = () => Promise<V>;

// An answer older than `freshMs` is still served while one refresh runs in the background (allowStale), so a
// busy key never makes its callers wait on the database; one older than `maxAgeMs` (a key nobody asked for
// lately) is loaded again before it is served (forceRefresh). `forgetAll()` drops everything at once, and a
// load that started before it still answers its callers but stores nothing (clear() aborts it; ignoreFetchAbort
// lets it finish).
export function createAnswerCache<V extends object>(options: AnswerCacheOptions): AnswerCache<V> {
  const answers: LRUCache<string, V, Load<V>> = createBoundedLru<string, V, Load<V>>(options.max, {
    ttl: options.freshMs,
    // A hand-turned clock must be read on every check, not once a millisecond.
    ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
    allowStale: true,
    noDeleteOnFetchRejection: true,
    ignoreFetchAbort: true,
    fetchMethod: (_key, stale, { context: load }) =>
      stale === undefined
        ? load()
        : load().catch((error: Error) => {
            options.log.warn(`${options.name} refresh failed`, { error: error.message });
            throw error;
          }),
  });

  return {
    async get(key, load) {
      const tooOld = answers.getRemainingTTL(key) < options.freshMs - options.maxAgeMs;
      return (await answers.fetch(key, { context: load, forceRefresh: tooOld, allowStale: !tooOld }))!;
    },
    forgetAll() {
      answers.clear();
    },
  };
}
