// How many API processes share the rate-limit buckets: each stamps its row in rate_limit_processes once a second and counts the rows stamped
// in the last few seconds. The limiters (rate-limit.ts) use the count to decide when a key's spends could matter to another process and
// must be written; alone, a process writes none.
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

/** A process not stamped for this long has stopped or died; its share of every bucket is no longer counted. */
const ALIVE_WITHIN = '5 seconds';
/** Rows of processes this long gone are deleted by the next stamp of any process. */
const FORGOTTEN_AFTER = '1 minute';

export type RateLimitPeers = {
  /** Processes sharing the buckets, this one included, as of the last stamp. */
  count(): number;
  /** Stamps this process and counts the living; run by the limiters' sync loop, at most once a second. */
  stamp(): Promise<void>;
  /** Removes this process at once, so the others stop counting its share. */
  leave(): Promise<void>;
};

export async function joinRateLimitPeers(db: DatabasePool): Promise<RateLimitPeers> {
  const processId = randomUUID();
  let processes = 1;
  let stampedAt = 0;

  async function stamp() {
    const now = Date.now();
    if (now - stampedAt < 1_000) return;
    stampedAt = now;
    // The CTEs' writes are not visible to the outer SELECT: it counts the others and adds this one.
    processes = await db.oneFirst(sql.type(z.object({ processes: z.number() }))`
      WITH stamped AS (
        INSERT INTO rate_limit_processes (process_id, seen_at) VALUES (${processId}, clock_timestamp())
        ON CONFLICT (process_id) DO UPDATE SET seen_at = EXCLUDED.seen_at
      ), forgotten AS (
        DELETE FROM rate_limit_processes WHERE seen_at < clock_timestamp() - ${FORGOTTEN_AFTER}::interval
      )
      SELECT 1 + count(*)::int AS processes FROM rate_limit_processes
      WHERE process_id <> ${processId} AND seen_at > clock_timestamp() - ${ALIVE_WITHIN}::interval
    `);
  }

  await stamp();
  return {
    count: () => processes,
    stamp,
    async leave() {
      await db.query(sql.typeAlias('void')`DELETE FROM rate_limit_processes WHERE process_id = ${processId}`);
    },
  };
}
