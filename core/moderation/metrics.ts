// GET /v1/admin/metrics: platform counts in one database round trip, each on an index, plus the
// running workflows per type from Temporal's visibility store (null when it cannot be reached).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const Counts = z.object({
  users: z.number(),
  suspended: z.number(),
  admins: z.number(),
  petitions_by_status: z.record(z.string(), z.number()),
  signatures_today: z.number(),
  signatures_7d: z.number(),
  signatures_total: z.number(),
  open_reports: z.number(),
  deliveries_failed: z.number(),
});

/** Running workflows per type (only types with any); null when Temporal cannot be reached. */
export type RunningWorkflows = { countRunningWorkflows(): Promise<Record<string, number> | null> };

export async function platformMetrics(db: CommonQueryMethods, workflows: RunningWorkflows) {
  const counts = await db.one(sql.type(Counts)`
    SELECT
      (SELECT count(*) FROM users)::int AS users,
      (SELECT count(*) FROM users WHERE suspended_at IS NOT NULL)::int AS suspended,
      (SELECT count(*) FROM users WHERE role = 'admin')::int AS admins,
      (SELECT COALESCE(jsonb_object_agg(status, n), '{}'::jsonb)
       FROM (SELECT status, count(*)::int AS n FROM petitions WHERE deleted_at IS NULL GROUP BY status) AS s) AS petitions_by_status,
      (SELECT count(*) FROM signatures WHERE created_at >= date_trunc('day', now()))::int AS signatures_today,
      (SELECT count(*) FROM signatures WHERE created_at >= now() - interval '7 days')::int AS signatures_7d,
      (SELECT COALESCE(sum(count), 0) FROM signature_counters)::bigint AS signatures_total,
      (SELECT count(*) FROM reports WHERE status = 'open')::int AS open_reports,
      (SELECT count(*) FROM webhook_deliveries WHERE status = 'failed' AND finished_at > now() - interval '24 hours')::int AS deliveries_failed
  `);
  return {
    users: { total: counts.users, suspended: counts.suspended, admins: counts.admins },
    petitions_by_status: counts.petitions_by_status,
    signatures: { today: counts.signatures_today, last_7_days: counts.signatures_7d, total: counts.signatures_total },
    open_reports: counts.open_reports,
    webhook_deliveries_failed_24h: counts.deliveries_failed,
    workflows_running: await workflows.countRunningWorkflows(),
  };
}
