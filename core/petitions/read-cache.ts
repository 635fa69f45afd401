// The public reads of petitions (by link without credentials, and pages of the public list), served from memory in each API process. Only what the policy shows
// to ANONYMOUS is kept: a petition only when canRead(ANONYMOUS) holds without an access code, lists only listedTo(ANONYMOUS) rows. Whatever depends on the
// viewer is decided by the caller, which bypasses this cache for it.
import { createBoundedLru } from '../../platform/bounded-lru.ts';
import type { DatabasePool } from 'slonik';
import type { NotificationListener } from '../../db/notifications.ts';
import { createAnswerCache } from '../../platform/answer-cache.ts';
import type { Logger } from '../../platform/logger.ts';
import { listPetitions, type PetitionListQuery } from './listing.ts';
import { findPetitionByRef } from './manage.ts';
import { ANONYMOUS, canRead } from './policy.ts';
import { liveSignatureCount, type PetitionRow } from './queries.ts';

export const PETITION_CHANGED_CHANNEL = 'rally_petition_changed';

/** A count is re-read in the background once this old, and before it is served once COUNT_MAX_AGE_MS old. */
const COUNT_REFRESH_AFTER_MS = 500;
const COUNT_MAX_AGE_MS = 1_000;
const LIST_FRESH_MS = 1_000;
const LIST_MAX_AGE_MS = 10_000;

export type PublicPetitionCache = {
  /**
   * The petition `ref` (slug or id) as an anonymous visitor reads it, or undefined when that is not
   * a plain public read (no such petition, unpublished, private, deleted): the caller then asks the
   * database through the policy, which answers the right 404 or 403. A new object whenever anything
   * shown changes, the same object otherwise (callers may memoize on it).
   */
  read(ref: string): Promise<Readonly<PetitionRow> | undefined>;
  /** A page of the public list (query without creatorId), as listPetitions(…, ANONYMOUS) returns it. */
  list(query: Omit<PetitionListQuery, 'creatorId'>): Promise<readonly PetitionRow[]>;
  stop(): void;
};

/**
 * What the cache needs of the live signature feed (core/signatures/live-feed.ts, wired in api/app.ts),
 * declared here so the petition kernel does not import the signatures aggregate that builds on it.
 */
type SignatureCountEvent = { type: 'signature.created' | 'signature.removed'; signature_count: number };
type SignatureCountFeed = { subscribe(petitionId: string, listener: (event: SignatureCountEvent) => void): () => void };

type Entry = { row: Readonly<PetitionRow>; unsubscribe: () => void };

/** The three kinds of announcement (migration 0020) and what each one touches. */
const TOUCHES: Record<string, (row: PetitionRow, id: string) => boolean> = {
  petition: (row, id) => row.id === id,
  creator: (row, id) => row.creator_id === id,
  category: (row, id) => row.category?.id === id,
};

// Freshness. The petition's own fields, its creator and category: forgotten the moment the database announces a
// change on rally_petition_changed (migration 0020; triggers, so no writer can forget it). Its live count:
// folded from the signature feed as signatures arrive (every API process hears every other's), and re-read from
// the counter shards once it is a second old, so a count is never more than a second behind whatever the feed
// missed (invalidations, a lost connection); lru-cache times the re-reads (fetchMethod: one at a time, in the
// background past half a second). List pages: fresh for a second, then served while one refresh runs (a page
// nobody asked for in ten seconds is read again first), and dropped at once on any announced change
// (platform/answer-cache.ts, as search answers are).
export async function createPublicPetitionCache(deps: {
  db: DatabasePool;
  notifications: NotificationListener;
  feed: SignatureCountFeed;
  log: Logger;
  maxPetitions?: number;
}): Promise<PublicPetitionCache> {
  const maxPetitions = deps.maxPetitions ?? 10_000;
  // The count each entry last read from the counter shards, by the same key: stale after
  // COUNT_REFRESH_AFTER_MS (read again in the background), forced past COUNT_MAX_AGE_MS. A read
  // updates its entry's row; one cut off by the entry's removal still answers (ignoreFetchAbort).
  const countReads = createBoundedLru<string, number, Entry>(maxPetitions, {
    ttl: COUNT_REFRESH_AFTER_MS,
    allowStale: true,
    noDeleteOnFetchRejection: true,
    ignoreFetchAbort: true,
    fetchMethod: async (_ref, stale, { context: entry }) => {
      try {
        const count = await liveSignatureCount(deps.db, entry.row.id);
        withCount(entry, count);
        return count;
      } catch (error) {
        if (stale !== undefined) deps.log.warn('petition count refresh failed', { error: (error as Error).message });
        throw error;
      }
    },
  });
  const entries = createBoundedLru<string, Entry>(maxPetitions, {
    dispose: (entry, ref) => {
      entry.unsubscribe();
      countReads.delete(ref);
    },
  });
  const lists = createAnswerCache<readonly PetitionRow[]>({
    max: 1_000,
    freshMs: LIST_FRESH_MS,
    maxAgeMs: LIST_MAX_AGE_MS,
    name: 'petition list page',
    log: deps.log,
  });
  const loading = new Map<string, Promise<Readonly<PetitionRow> | undefined>>();
  // Bumped by every announced change: a load that started before it does not store what it read.
  let generation = 0;

  function forget(touches: (row: PetitionRow) => boolean): void {
    generation += 1;
    lists.forgetAll();
    for (const [key, entry] of [...entries.entries()]) if (touches(entry.row)) entries.delete(key);
  }

  await deps.notifications.listen(PETITION_CHANGED_CHANNEL, (payload) => {
    const [kind, id] = payload.split(' ');
    const touches = kind !== undefined && id !== undefined ? TOUCHES[kind] : undefined;
    forget(touches ? (row) => touches(row, id!) : () => true);
  });
  // Announcements sent while the connection was down are lost: start over.
  deps.notifications.onReconnect(() => forget(() => true));

  function withCount(entry: Entry, count: number): void {
    if (count !== entry.row.live_signature_count) entry.row = Object.freeze({ ...entry.row, live_signature_count: count });
  }

  function fold(entry: Entry, event: SignatureCountEvent): void {
    // Signing transactions commit out of order, each reporting the count it saw: the largest is the
    // nearest. A removal reports the count after it.
    withCount(entry, event.type === 'signature.created' ? Math.max(entry.row.live_signature_count, event.signature_count) : event.signature_count);
  }

  async function load(ref: string): Promise<Readonly<PetitionRow> | undefined> {
    const startedIn = generation;
    const found = await findPetitionByRef(deps.db, ref);
    if (!found || !canRead(ANONYMOUS, found)) return undefined;
    const row = Object.freeze(found);
    if (startedIn !== generation || entries.has(ref)) return row;
    const entry: Entry = { row, unsubscribe: () => undefined };
    entry.unsubscribe = deps.feed.subscribe(row.id, (event) => fold(entry, event));
    entries.set(ref, entry);
    countReads.set(ref, row.live_signature_count);
    return row;
  }

  function once<T>(pending: Map<string, Promise<T>>, key: string, run: () => Promise<T>): Promise<T> {
    let promise = pending.get(key);
    if (!promise) {
      promise = run().finally(() => pending.delete(key));
      pending.set(key, promise);
    }
    return promise;
  }

  return {
    async read(ref) {
      const entry = entries.get(ref);
      if (!entry) return once(loading, ref, () => load(ref));
      const tooOld = countReads.getRemainingTTL(ref) < COUNT_REFRESH_AFTER_MS - COUNT_MAX_AGE_MS;
      await countReads.fetch(ref, { context: entry, forceRefresh: tooOld, allowStale: !tooOld });
      return entry.row;
    },
    list(query) {
      const key = JSON.stringify([query.sort, query.limit, query.cursor ?? null, query.status ?? null, query.categoryId ?? null, query.tags ?? null]);
      return lists.get(key, async () => Object.freeze(await listPetitions(deps.db, { ...query, creatorId: undefined }, ANONYMOUS)));
    },
    stop() {
      entries.clear();
      lists.forgetAll();
    },
  };
}
