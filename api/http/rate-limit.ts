// Token buckets shared by every API process, checked in memory so a request costs next to nothing; the route guard decides which bucket is charged (the
// verified credential, else the client address). Every SYNC_INTERVAL_MS each process folds what it spent into a shared row per key in PostgreSQL (one statement
// for all keys) and adopts the combined level.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { clientAddressGroup } from '../../core/signatures/network-block.ts';
import { sql } from '../../db/sql.ts';
import type { Logger } from '../../platform/logger.ts';
import { metrics } from '../../platform/metrics.ts';

const SYNC_INTERVAL_MS = 250;
// Only keys spent on here since their last sync are written, each at most once a second, so the writes follow
// the traffic, not the number of keys: a key learns what the other processes spent when it is charged again.
// The slack is bounded: a process that has not yet synced a key grants at most one burst for it, and afterwards
// can overspend by at most what it serves in one second.
const KEY_SYNC_INTERVAL_MS = 1_000;
/**
 * One statement's keys: about 40 ms of PostgreSQL per 1,000, so a sync stays well inside its interval.
 * Past this many due keys the oldest-charged are shed: they limit per process.
 */
const MAX_KEYS_PER_SYNC = 2_000;
/** Buckets one limiter remembers; past it the least recently charged is forgotten. */
const MAX_BUCKETS = 100_000;
const FORGET_SWEEP_MS = 1_000;

type Bucket = { tokens: number; updatedAt: number; unsynced: number; syncedAt: number };

const SyncedBucket = z.object({ bucket_key: z.string(), tokens: z.number() });

export type Decision = { allowed: boolean; limit: number; remaining: number; resetAt: number; retryAfterSeconds: number };

export type RateLimiter = { readonly rps: number; readonly burst: number; take(key: string): Decision; sync(): Promise<void>; stop(): void };

/** The bucket of a client address: an IPv6 address shares the bucket of its /64. */
export const addressBucketKey = (address: string): string => `ip:${clientAddressGroup(address)}`;

// A person's key: `user:` and the id, matched before the id is cast.
const USER_KEY_PATTERN = '^user:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/** The bucket of a person, whichever of their access tokens they use. */
export const userBucketKey = (userId: string): string => `user:${userId}`;

export function createRateLimiter(deps: { db: DatabasePool; rps: number; burst: number; log: Logger; maxKeysPerSync?: number }): RateLimiter {
  const maxKeysPerSync = deps.maxKeysPerSync ?? MAX_KEYS_PER_SYNC;
  // Both in order of the last charge, oldest first (a charge moves its key to the end).
  const buckets = new Map<string, Bucket>();
  const unsyncedKeys = new Set<string>();
  let sweptAt = Date.now();

  const refill = (bucket: Bucket, now: number) => {
    bucket.tokens = Math.min(deps.burst, bucket.tokens + ((now - bucket.updatedAt) * deps.rps) / 1000);
    bucket.updatedAt = now;
  };

  /** Spends one token of `key`'s bucket if there is one; in memory, no I/O. */
  function take(key: string): Decision {
    const now = Date.now();
    let bucket = buckets.get(key);
    if (bucket) buckets.delete(key);
    else bucket = { tokens: deps.burst, updatedAt: now, unsynced: 0, syncedAt: 0 };
    buckets.set(key, bucket);
    if (buckets.size > MAX_BUCKETS) forget(buckets.keys().next().value!);
    refill(bucket, now);
    const allowed = bucket.tokens >= 1;
    if (allowed) {
      bucket.tokens -= 1;
      bucket.unsynced += 1;
      unsyncedKeys.delete(key);
      unsyncedKeys.add(key);
    }
    return {
      allowed,
      limit: deps.burst,
      remaining: Math.max(0, Math.floor(bucket.tokens)),
      resetAt: Math.ceil(now / 1000) + Math.ceil((deps.burst - bucket.tokens) / deps.rps),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / deps.rps)),
    };
  }

  function forget(key: string) {
    buckets.delete(key);
    unsyncedKeys.delete(key);
  }

  /** A bucket refilled to full with nothing to tell is what a new one would be: it goes. */
  function forgetFullBuckets(now: number) {
    if (now - sweptAt < FORGET_SWEEP_MS) return;
    sweptAt = now;
    for (const [key, bucket] of buckets) {
      refill(bucket, now);
      if (bucket.unsynced === 0 && bucket.tokens >= deps.burst) buckets.delete(key);
    }
  }

  /** The keys to write now, oldest charge first: spent on since their last sync, which was a second ago or more. */
  function dueKeys(now: number): string[] {
    const due: string[] = [];
    for (const key of unsyncedKeys) if (now - buckets.get(key)!.syncedAt >= KEY_SYNC_INTERVAL_MS) due.push(key);
    const shed = due.length - maxKeysPerSync;
    if (shed <= 0) return due;
    // Shed keys keep their spends in this process's bucket, which limits them here alone until charged again.
    for (const key of due.splice(0, shed)) {
      buckets.get(key)!.unsynced = 0;
      unsyncedKeys.delete(key);
    }
    metrics.rateLimitSyncShed.inc(shed);
    return due;
  }

  async function sync() {
    const now = Date.now();
    forgetFullBuckets(now);
    const keys = dueKeys(now);
    if (keys.length === 0) return;
    const spent = keys.map((key) => {
      const bucket = buckets.get(key)!;
      const amount = bucket.unsynced;
      bucket.unsynced = 0;
      bucket.syncedAt = now;
      unsyncedKeys.delete(key);
      return amount;
    });
    // A person's bucket is not written once their account is gone, nor while its row is locked for its erasure (its last step
    // locks the row, deletes their buckets, then the row): a spend synced after that would leave their id behind.
    const rows = await deps.db.any(sql.type(SyncedBucket)`
      INSERT INTO rate_limit_buckets (bucket_key, tokens, updated_at)
      SELECT key, ${deps.burst} - spent, clock_timestamp() FROM unnest(${sql.array(keys, 'text')}, ${sql.array(spent, 'float8')}) AS t(key, spent)
      WHERE key NOT LIKE 'user:%'
        OR EXISTS (SELECT FROM users u WHERE u.id = CASE WHEN key ~ ${USER_KEY_PATTERN} THEN substring(key FROM 6)::uuid END FOR KEY SHARE SKIP LOCKED)
      ON CONFLICT (bucket_key) DO UPDATE SET
        tokens = LEAST(${deps.burst}::float8, rate_limit_buckets.tokens
                   + EXTRACT(EPOCH FROM clock_timestamp() - rate_limit_buckets.updated_at) * ${deps.rps})
                 - (${deps.burst} - EXCLUDED.tokens),
        updated_at = clock_timestamp()
      RETURNING bucket_key, tokens
    `);
    const syncedAt = Date.now();
    for (const row of rows) {
      const bucket = buckets.get(row.bucket_key);
      if (!bucket) continue;
      // What was spent here while the statement ran is not in the shared level yet.
      bucket.tokens = row.tokens - bucket.unsynced;
      bucket.updatedAt = syncedAt;
    }
  }

  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sync()
      .catch((error: Error) => deps.log.warn('rate limit sync failed; limiting per process until it recovers', { error: error.message }))
      .finally(() => {
        running = false;
      });
  }, SYNC_INTERVAL_MS);
  timer.unref();

  return { rps: deps.rps, burst: deps.burst, take, sync, stop: () => clearInterval(timer) };
}
