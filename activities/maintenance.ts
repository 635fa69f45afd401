// Housekeeping on the database: removing rows whose time is over.
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';

export function createMaintenanceActivities({ db }: { db: DatabasePool }) {
  return {
    /** Deletes up to batchSize expired idempotency records; returns how many went. Safe to repeat. */
    async deleteExpiredIdempotencyKeys({ batchSize }: { batchSize: number }): Promise<number> {
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
    },

    /** Forgets rate-limit buckets idle for an hour: they would be full again by now anyway. */
    async deleteIdleRateLimitBuckets(): Promise<number> {
      const result = await db.query(sql.type(z.object({ bucket_key: z.string() }))`
        DELETE FROM rate_limit_buckets WHERE updated_at < now() - interval '1 hour' RETURNING bucket_key
      `);
      return result.rowCount;
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
