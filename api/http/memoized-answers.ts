// Answers served from memory (core/*/read-cache.ts, search-cache.ts, analytics-cache.ts) hand out the same object until something shown changes, so the
// object's identity is its version. What a route makes of such an object is computed once per object: presented, deep-frozen (so the response check may trust
// it after checking it once, response-check.ts), and given the weak ETag of its JSON.
import { weakEtagOf } from './conditional.ts';

export type Presented<T> = { data: T; etag: string };

/** A presenter that remembers its answer per source object, for as long as that object lives. */
export function presentedOnce<K extends object, T>(): (key: K, present: () => T) => Presented<T> {
  const seen = new WeakMap<K, Presented<T>>();
  return (key, present) => {
    let presented = seen.get(key);
    if (!presented) {
      const data = deepFreeze(present());
      presented = { data, etag: weakEtagOf(JSON.stringify(data)) };
      seen.set(key, presented);
    }
    return presented;
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
