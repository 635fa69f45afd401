// Token buckets shared by every API process, checked in memory so a request costs next to nothing; the route guard decides which bucket is charged (the
// verified credential, else the client address). A process writes a key's spends to a shared row only once they could matter to the others
// (see unwrittenAllowance), folding them in with one statement for all such keys, and adopts the combined level.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { clientAddressGroup } from '../../core/signatures/network-block.ts';
import { sql } from '../../db/sql.ts';
import type { Logger } from '../../platform/logger.ts';
import { metrics } from '../../platform/metrics.ts';
import type { RateLimitPeers } from './rate-limit-peers.ts';

const SYNC_INTERVAL_MS = 250;
// A key is written at most once a second, so the writes follow the traffic and not the number of keys.
const KEY_SYNC_INTERVAL_MS = 1_000;
/**
 * One statement's keys: about 40 ms of PostgreSQL per 1,000, so a sync stays well inside its interval.
 * Past this many due keys the oldest-charged are shed: they limit per process.
 */
const MAX_KEYS_PER_SYNC = 2_000;
/** A stopping process writes at most this many statements of keys it kept to itself. */
const MAX_FLUSH_STATEMENTS = 10;
/** Buckets one limiter remembers; past it the least recently charged is forgotten. */
const MAX_BUCKETS = 100_000;
const FORGET_SWEEP_MS = 1_000;

type Bucket = { tokens: number; updatedAt: number; unwritten: number; writtenAt: number };

const SyncedBucket = z.object({ bucket_key: z.string(), tokens: z.number() });

export type Decision = { allowed: boolean; limit: number; remaining: number; resetAt: number; retryAfterSeconds: number };

export type RateLimiter = {
  readonly rps: number;
  readonly burst: number;
  take(key: string): Decision;
  /** Writes the keys whose spends could now matter to another process. */
  sync(): Promise<void>;
  /** Writes every key with spends not written yet: a stopping process's last sync. */
  flush(): Promise<void>;
};

/**
 * How many spends of one key a process keeps to itself before writing them. Alone, its buckets are exact and it writes none. Beside
 * others, each keeps fewer than this, so the shared rows miss at most a quarter of a burst in all: a key charged a few times in one
 * process (a signer's address, a person's general bucket) costs no write, and a busy one (a network block) is written every second.
 */
export function unwrittenAllowance(burst: number, processes: number): number {
  return processes <= 1 ? Infinity : 1 + Math.floor(burst / (4 * (processes - 1)));
}

/** The bucket of a client address: an IPv6 address shares the bucket of its /64. */
export const addressBucketKey = (address: string): string => `ip:${clientAddressGroup(address)}`;

// A person's key: `user:` and the id, matched before the id is cast.
const USER_KEY_PATTERN = '^user:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

/** The bucket of a person, whichever of their access tokens they use. */
export const userBucketKey = (userId: string): string => `user:${userId}`;

export function createRateLimiter(deps: { db: DatabasePool; peers: RateLimitPeers; rps: number; burst: number; maxKeysPerSync?: number }): RateLimiter {
  const maxKeysPerSync = deps.maxKeysPerSync ?? MAX_KEYS_PER_SYNC;
  // Both in order of the last charge, oldest first (a charge moves its key to the end).
  const buckets = new Map<string, Bucket>();
  const dueKeys = new Set<string>();
  let processes = deps.peers.count();
  let allowance = unwrittenAllowance(deps.burst, processes);
  let sweptAt = Date.now();

  const refill = (bucket: Bucket, now: number) => {
    bucket.tokens = Math.min(deps.burst, bucket.tokens + ((now - bucket.updatedAt) * deps.rps) / 1000);
    bucket.updatedAt = now;
  };

  /** Spends one token of `key`'s bucket if there is one; in memory, no I/O. */
  function take(key: string): Decision {
    const now = Date.now();
    deps.peers.charged();
    let bucket = buckets.get(key);
    if (bucket) buckets.delete(key);
    else bucket = { tokens: deps.burst, updatedAt: now, unwritten: 0, writtenAt: 0 };
    buckets.set(key, bucket);
    if (buckets.size > MAX_BUCKETS) forget(buckets.keys().next().value!);
    refill(bucket, now);
    const allowed = bucket.tokens >= 1;
    if (allowed) {
      bucket.tokens -= 1;
      bucket.unwritten += 1;
      if (bucket.unwritten >= allowance) {
        dueKeys.delete(key);
        dueKeys.add(key);
      }
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
    dueKeys.delete(key);
  }

  /** A process joined or left: the keys due are those past the new allowance. */
  function followPeers() {
    if (deps.peers.count() === processes) return;
    processes = deps.peers.count();
    allowance = unwrittenAllowance(deps.burst, processes);
    dueKeys.clear();
    for (const [key, bucket] of buckets) if (bucket.unwritten >= allowance) dueKeys.add(key);
  }

  /**
   * A bucket refilled to full is what a new one would be: it goes, with any spends it kept to itself, which are older than a full refill
   * and so no longer count anywhere.
   */
  function forgetFullBuckets(now: number) {
    if (now - sweptAt < FORGET_SWEEP_MS) return;
    sweptAt = now;
    for (const [key, bucket] of buckets) {
      refill(bucket, now);
      if (bucket.tokens >= deps.burst) forget(key);
    }
  }

  /** The keys to write now, oldest charge first: past the allowance, and last written a second ago or more. */
  function takeDueKeys(now: number): string[] {
    const due: string[] = [];
    for (const key of dueKeys) if (now - buckets.get(key)!.writtenAt >= KEY_SYNC_INTERVAL_MS) due.push(key);
    const shed = due.length - maxKeysPerSync;
    if (shed <= 0) return due;
    // Shed keys keep their spends in this process's bucket, which limits them here alone until charged again.
    for (const key of due.splice(0, shed)) {
      buckets.get(key)!.unwritten = 0;
      dueKeys.delete(key);
    }
    metrics.rateLimitSyncShed.inc(shed);
    return due;
  }

  /** Folds the spends of `keys` into their shared rows and adopts the combined levels. */
  async function write(keys: string[], now: number) {
    if (keys.length === 0) return;
    const spent = keys.map((key) => {
      const bucket = buckets.get(key)!;
      const amount = bucket.unwritten;
      bucket.unwritten = 0;
      bucket.writtenAt = now;
      dueKeys.delete(key);
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
      bucket.tokens = row.tokens - bucket.unwritten;
      bucket.updatedAt = syncedAt;
    }
  }

  async function sync() {
    const now = Date.now();
    followPeers();
    forgetFullBuckets(now);
    await write(takeDueKeys(now), now);
  }

  async function flush() {
    const now = Date.now();
    // Newest charge first: those are the keys whose spends will still count longest.
    const kept = [...buckets].filter(([, bucket]) => bucket.unwritten > 0).map(([key]) => key);
    kept.reverse();
    for (let start = 0; start < Math.min(kept.length, MAX_FLUSH_STATEMENTS * maxKeysPerSync); start += maxKeysPerSync) {
      await write(kept.slice(start, start + maxKeysPerSync), now);
    }
  }

  return { rps: deps.rps, burst: deps.burst, take, sync, flush };
}

/** Every SYNC_INTERVAL_MS: this process's stamp, then each limiter's due keys; `stop` writes what the limiters kept and leaves. */
export function startRateLimitSync(deps: { peers: RateLimitPeers; limiters: RateLimiter[]; log: Logger }): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const syncAll = async () => {
    await deps.peers.stamp();
    for (const limiter of deps.limiters) await limiter.sync();
  };
  const timer = setInterval(() => {
    running ??= syncAll()
      .catch((error: Error) => deps.log.warn('rate limit sync failed; limiting per process until it recovers', { error: error.message }))
      .finally(() => {
        running = undefined;
      });
  }, SYNC_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      try {
        for (const limiter of deps.limiters) await limiter.flush();
        await deps.peers.leave();
      } catch (error) {
        deps.log.warn('rate limit spends not written at stop; other processes will not count them', { error: (error as Error).message });
      }
    },
  };
}
