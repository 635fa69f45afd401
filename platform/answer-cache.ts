// A bounded in-process cache of computed answers (a search page, a petition's analytics) for reads
// that many clients repeat and that may lag their sources by a stated moment. Each key is computed by
// one load at a time however many requests ask for it; an answer older than `freshMs` is still served
// while one refresh runs in the background, so a busy key never makes its callers wait on the
// database; one older than `maxAgeMs` (a key nobody asked for lately) is loaded again before it is
// served. `forgetAll()` drops everything at once, and a load that started before it stores nothing.
// Failed loads are never stored: the next request tries again.
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

type Entry<V> = { value: V; loadedAt: number };

export function createAnswerCache<V extends object>(options: AnswerCacheOptions): AnswerCache<V> {
  const entries = createBoundedLru<string, Entry<V>>(options.max);
  const loading = new Map<string, Promise<V>>();
  const now = options.now ?? Date.now;
  let generation = 0;

  function loadOnce(key: string, load: () => Promise<V>): Promise<V> {
    const pending = loading.get(key);
    if (pending) return pending;
    const startedIn = generation;
    const loadedAt = now();
    const promise: Promise<V> = load()
      .then((value) => {
        if (startedIn === generation) entries.set(key, { value, loadedAt });
        return value;
      })
      .finally(() => {
        if (loading.get(key) === promise) loading.delete(key);
      });
    loading.set(key, promise);
    return promise;
  }

  return {
    async get(key, load) {
      const entry = entries.get(key);
      const age = entry ? now() - entry.loadedAt : Infinity;
      if (!entry || age > options.maxAgeMs) return loadOnce(key, load);
      if (age > options.freshMs && !loading.has(key)) {
        loadOnce(key, load).catch((error: Error) => options.log.warn(`${options.name} refresh failed`, { error: error.message }));
      }
      return entry.value;
    },
    forgetAll() {
      generation += 1;
      entries.clear();
      loading.clear();
    },
  };
}
