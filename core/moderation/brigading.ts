// Brigading: many reports against one target from one network block (keyed /24 or /64 hash, as signatures keep it) within an hour. At
// RALLY_REPORT_BRIGADE_THRESHOLD, in the report's transaction, it is alerted once per target, block and hour, and from then on the block's reports on that
// target no longer count toward auto-hide (reporters.ts); they stay in the queue for a reviewer.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, SYSTEM_AUDIT } from '../audit/audit-log.ts';
import { recordEvent } from '../events/record-event.ts';
import { notifyUsers } from '../notifications/create.ts';
import type { ModerationTarget } from './reports.ts';

const WINDOW = sql.fragment`interval '1 hour'`;

export type FiledReport = { id: string; target: ModerationTarget; networkHash: Buffer | null };

/**
 * Raises the alert when this report brings its block to the threshold; true when it did.
 * Writes one report_brigade_alerts row (a transaction-scoped advisory lock on the target and block makes
 * concurrent reports take turns), one `report.brigading_suspected` outbox event (no petition_id: platform-wide
 * webhooks only, so the target's owner is not told), an in-app notification to every active administrator, and
 * an audit row.
 */
export async function watchForBrigading(tx: CommonQueryMethods, report: FiledReport, threshold: number): Promise<boolean> {
  if (!report.networkHash) return false;
  const { target } = report;
  const block = report.networkHash.toString('hex');
  await tx.query(sql.typeAlias('void')`SELECT FROM pg_advisory_xact_lock(hashtextextended(${`report-brigade:${target.type}:${target.id}:${block}`}, 0))`);
  const reports = await tx.oneFirst(sql.type(z.object({ reports: z.number() }))`
    SELECT count(*)::int AS reports FROM reports
    WHERE target_type = ${target.type} AND target_id = ${target.id} AND network_hash = ${sql.binary(report.networkHash)} AND created_at > now() - ${WINDOW}
  `);
  if (reports < threshold) return false;
  const alertId = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO report_brigade_alerts (target_type, target_id, network_hash, reports)
    SELECT ${target.type}, ${target.id}, ${sql.binary(report.networkHash)}, ${reports}
    WHERE NOT EXISTS (
      SELECT 1 FROM report_brigade_alerts
      WHERE target_type = ${target.type} AND target_id = ${target.id} AND network_hash = ${sql.binary(report.networkHash)} AND created_at > now() - ${WINDOW}
    )
    RETURNING id
  `);
  if (!alertId) return false;
  const data = {
    alert_id: alertId,
    target_type: target.type,
    target_id: target.id,
    network_block: block,
    reports,
    threshold,
    window: '1h',
    report_id: report.id,
  };
  await recordEvent(tx, { type: 'report.brigading_suspected', actor: { type: 'system', id: null }, petitionId: null, data });
  const admins = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM users WHERE role = 'admin' AND suspended_at IS NULL`);
  await notifyUsers(
    tx,
    admins.map((userId) => ({
      userId,
      type: 'report.brigading_suspected',
      data,
      dedupeKey: `report-brigade:${alertId}`,
      title: `Reports from one network block against a ${target.type}`,
      body:
        `${reports} reports against ${target.type} ${target.id} came from one network block (${block.slice(0, 12)}…) within an hour. ` +
        'They no longer count toward hiding it; review them in GET /v1/admin/reports.',
    })),
  );
  await recordAudit(tx, { context: SYSTEM_AUDIT, action: 'report.brigading_suspected', target, after: data });
  return true;
}
