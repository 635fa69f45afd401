// Housekeeping activities (core/maintenance/expired-rows.ts does the work).
import type { DatabasePool } from 'slonik';
import { deleteExpiredAuthRecords, deleteExpiredIdempotencyKeys, deleteIdleRateLimitBuckets } from '../core/maintenance/expired-rows.ts';

export function createMaintenanceActivities({ db }: { db: DatabasePool }) {
  return {
    /** Deletes up to batchSize expired idempotency records; returns how many went. Safe to repeat. */
    deleteExpiredIdempotencyKeys: ({ batchSize }: { batchSize: number }): Promise<number> => deleteExpiredIdempotencyKeys(db, batchSize),
    /** Forgets idle rate-limit buckets and decision-maker invitations logged over a week ago. */
    deleteIdleRateLimitBuckets: (): Promise<number> => deleteIdleRateLimitBuckets(db),
    /** Deletes up to batchSize rows per table of login records and refresh tokens no longer needed. Safe to repeat. */
    deleteExpiredAuthRecords: ({ batchSize }: { batchSize: number }): Promise<number> => deleteExpiredAuthRecords(db, batchSize),
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
