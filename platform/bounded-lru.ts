// LRU caches bounded by a number of entries whose storage grows with what they hold. Given `max`,
// lru-cache allocates its key, value, link (and, with a ttl, timing) arrays for `max` entries when the
// cache is made: the API's caches held ~4 MB from start, empty (the user directory's two 50,000-entry
// caches half of it). Bounded by `maxSize` with every entry counting 1, it evicts exactly as with
// `max` (the least recently used entry goes when one more would exceed the bound) and allocates as
// entries arrive.
import { LRUCache } from 'lru-cache';

type Options<K extends {}, V extends {}, FC> = Omit<LRUCache.Options<K, V, FC>, 'max' | 'maxSize' | 'sizeCalculation' | 'maxEntrySize'>;

const countsOne = () => 1;

export function createBoundedLru<K extends {}, V extends {}, FC = unknown>(maxEntries: number, options: Options<K, V, FC> = {}): LRUCache<K, V, FC> {
  return new LRUCache<K, V, FC>({ ...options, maxSize: maxEntries, sizeCalculation: countsOne } as LRUCache.Options<K, V, FC>);
}
