// Housekeeping on the database: removing rows whose time is over. Each call removes a bounded
// batch and is safe to repeat.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

/** Deletes up to batchSize expired idempotency records; returns how many went. */
export async function deleteExpiredIdempotencyKeys(db: CommonQueryMethods, batchSize: number): Promise<number> {
  const result = await db.query(sql.type(z.object({ caller_key: z.string() }))`
    DELETE FROM idempotency_keys
    WHERE (caller_key, idempotency_key) IN (
      SELECT caller_key, idempotency_key FROM idempotency_keys
      WHERE expires_at < now()
      ORDER BY expires_at
      LIMIT ${batchSize}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING caller_key
  `);
  return result.rowCount;
}

/** Forgets rate-limit buckets idle for an hour: they would be full again by now anyway. */
export async function deleteIdleRateLimitBuckets(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.type(z.object({ bucket_key: z.string() }))`
    DELETE FROM rate_limit_buckets WHERE updated_at < now() - interval '1 hour' RETURNING bucket_key
  `);
  return result.rowCount;
}
