// LRU caches bounded by a number of entries whose storage grows with what they hold. Given `max`, lru-cache allocates its arrays for `max` entries up front
// (the API's caches held ~4 MB from start, empty); bounded by `maxSize` with every entry counting 1, it evicts exactly as with `max` (the least recently used
// goes when one more would exceed the bound) and allocates as entries arrive.
import { LRUCache } from 'lru-cache';

type Options<K extends {}, V extends {}, FC> = Omit<LRUCache.Options<K, V, FC>, 'max' | 'maxSize' | 'sizeCalculation' | 'maxEntrySize' | 'ttlAutopurge'> & {
  /**
   * With a ttl: how often entries past it are dropped, while the cache holds any. lru-cache drops a stale
   * entry only when it is read (or, with ttlAutopurge, through one timer per entry): entries that
   * a campaign's signers each fill once would otherwise stay until evicted by newer ones.
   */
  purgeStaleEveryMs?: number;
};

const countsOne = () => 1;

export function createBoundedLru<K extends {}, V extends {}, FC = unknown>(maxEntries: number, options: Options<K, V, FC> = {}): LRUCache<K, V, FC> {
  const { purgeStaleEveryMs, ...rest } = options;
  const cache = new LRUCache<K, V, FC>({ ...rest, maxSize: maxEntries, sizeCalculation: countsOne } as LRUCache.Options<K, V, FC>);
  if (purgeStaleEveryMs !== undefined) purgeWhileFilled(cache, purgeStaleEveryMs);
  return cache;
}

// One timer per cache, only while it holds entries (an empty cache keeps no timer, nor the cache alive);
// unref'd, so it never holds a process open.
function purgeWhileFilled<K extends {}, V extends {}, FC>(cache: LRUCache<K, V, FC>, everyMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  const set = cache.set.bind(cache);
  cache.set = (key, value, setOptions) => {
    timer ??= setInterval(() => {
      cache.purgeStale();
      if (cache.size === 0) {
        clearInterval(timer);
        timer = undefined;
      }
    }, everyMs).unref();
    return set(key, value, setOptions);
  };
}
