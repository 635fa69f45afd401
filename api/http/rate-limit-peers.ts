// How many API processes share the rate-limit buckets: each stamps its row in rate_limit_processes once a second and counts the others that
// charged a limit in the last few seconds. The limiters (rate-limit.ts) use the count to decide when a key's spends could matter to another
// process and must be written; alone, a process writes none.
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

/**
 * A process that has not charged a limit for this long (or stopped, or died) is not counted: it holds no spends another could miss.
 * One that starts charging again is counted within a second, as a process that joins is; see docs/architecture.md for that second.
 */
const CHARGING_WITHIN = '5 seconds';
/** Rows of processes this long gone are deleted by the next stamp of any process. */
const FORGOTTEN_AFTER = '1 minute';

export type RateLimitPeers = {
  /** Processes charging the buckets, this one included, as of the last stamp. */
  count(): number;
  /** Notes that this process charged a limit: its next stamp says so. */
  charged(): void;
  /** Stamps this process and counts the living; run by the limiters' sync loop, at most once a second. */
  stamp(): Promise<void>;
  /** Removes this process at once, so the others stop counting its share. */
  leave(): Promise<void>;
};

export async function joinRateLimitPeers(db: DatabasePool): Promise<RateLimitPeers> {
  const processId = randomUUID();
  let processes = 1;
  let stampedAt = 0;
  let charging = false;

  async function stamp() {
    const now = Date.now();
    if (now - stampedAt < 1_000) return;
    stampedAt = now;
    const chargedNow = charging;
    charging = false;
    // The CTEs' writes are not visible to the outer SELECT: it counts the others and adds this one.
    processes = await db.oneFirst(sql.type(z.object({ processes: z.number() }))`
      WITH stamped AS (
        INSERT INTO rate_limit_processes (process_id, seen_at, charged_at)
        VALUES (${processId}, clock_timestamp(), CASE WHEN ${chargedNow} THEN clock_timestamp() END)
        ON CONFLICT (process_id) DO UPDATE SET seen_at = EXCLUDED.seen_at, charged_at = COALESCE(EXCLUDED.charged_at, rate_limit_processes.charged_at)
      ), forgotten AS (
        DELETE FROM rate_limit_processes WHERE seen_at < clock_timestamp() - ${FORGOTTEN_AFTER}::interval
      )
      SELECT 1 + count(*)::int AS processes FROM rate_limit_processes
      WHERE process_id <> ${processId} AND seen_at > clock_timestamp() - ${CHARGING_WITHIN}::interval
        AND charged_at > clock_timestamp() - ${CHARGING_WITHIN}::interval
    `);
  }

  await stamp();
  return {
    count: () => processes,
    charged: () => {
      charging = true;
    },
    stamp,
    async leave() {
      await db.query(sql.typeAlias('void')`DELETE FROM rate_limit_processes WHERE process_id = ${processId}`);
    },
  };
}
