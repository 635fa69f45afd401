// Token buckets shared by every API process. Which bucket a request is charged to is decided by
// the route guard (route-guard.ts): the verified credential, else the client address. The check itself is in memory, so it costs next to nothing per request;
// every SYNC_INTERVAL_MS each process folds what it spent into a shared bucket row per key in
// PostgreSQL (one statement for all keys) and adopts the combined level. The slack is bounded: a
// process that has not yet synced a key grants at most one burst for it, and afterwards can
// overspend by at most what it serves in one interval.
import { isIPv6 } from 'node:net';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { networkBlockOf } from '../../core/signatures/network-block.ts';
import { sql } from '../../db/sql.ts';
import type { Logger } from '../../platform/logger.ts';

const SYNC_INTERVAL_MS = 250;
const IDLE_FORGET_MS = 10_000;

type Bucket = { tokens: number; updatedAt: number; unsynced: number; lastSeen: number };

const SyncedBucket = z.object({ bucket_key: z.string(), tokens: z.number() });

export type Decision = { allowed: boolean; limit: number; remaining: number; resetAt: number; retryAfterSeconds: number };

export type RateLimiter = { readonly rps: number; readonly burst: number; take(key: string): Decision; sync(): Promise<void>; stop(): void };

/**
 * The bucket of a client address. An IPv6 host is usually given a whole /64, so one caller could
 * otherwise take a fresh bucket per address: its addresses share the bucket of their /64.
 */
export function addressBucketKey(address: string): string {
  // An IPv4 address has no colon: the common case skips the IPv6 parsing below.
  if (!address.includes(':')) return `ip:${address}`;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return `ip:${mapped[1]}`;
  return isIPv6(address) ? `ip:${networkBlockOf(address)}` : `ip:${address}`;
}

export function createRateLimiter(deps: { db: DatabasePool; rps: number; burst: number; log: Logger }): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const refill = (bucket: Bucket, now: number) => {
    bucket.tokens = Math.min(deps.burst, bucket.tokens + ((now - bucket.updatedAt) * deps.rps) / 1000);
    bucket.updatedAt = now;
  };

  /** Spends one token of `key`'s bucket if there is one; in memory, no I/O. */
  function take(key: string): Decision {
    const now = Date.now();
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { tokens: deps.burst, updatedAt: now, unsynced: 0, lastSeen: now };
      buckets.set(key, bucket);
    }
    refill(bucket, now);
    bucket.lastSeen = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) {
      bucket.tokens -= 1;
      bucket.unsynced += 1;
    }
    return {
      allowed,
      limit: deps.burst,
      remaining: Math.max(0, Math.floor(bucket.tokens)),
      resetAt: Math.ceil(now / 1000) + Math.ceil((deps.burst - bucket.tokens) / deps.rps),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / deps.rps)),
    };
  }

  async function sync() {
    const now = Date.now();
    const keys: string[] = [];
    const spent: number[] = [];
    // Keys in use are synced even when nothing was spent here since the last sync, so this process
    // also learns what the others spent.
    for (const [key, bucket] of buckets) {
      if (now - bucket.lastSeen > IDLE_FORGET_MS && bucket.unsynced === 0) {
        buckets.delete(key);
        continue;
      }
      // A full bucket that spent nothing here has nothing to tell or to learn.
      refill(bucket, now);
      if (bucket.unsynced === 0 && bucket.tokens >= deps.burst) continue;
      keys.push(key);
      spent.push(bucket.unsynced);
      bucket.unsynced = 0;
    }
    if (keys.length === 0) return;
    const rows = await deps.db.any(sql.type(SyncedBucket)`
      INSERT INTO rate_limit_buckets (bucket_key, tokens, updated_at)
      SELECT key, ${deps.burst} - spent, clock_timestamp() FROM unnest(${sql.array(keys, 'text')}, ${sql.array(spent, 'float8')}) AS t(key, spent)
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
