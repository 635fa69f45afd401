// Filing a report, in one transaction: only a person may report (core/moderation/reporters.ts), the
// report is stored with its network block's hash, audited (`report.created`, so the audit log shows
// every report of a campaign), and checked for brigading, whose alert commits with the report that
// raised it. The caller then signals the target's moderation workflow.
import type { DatabasePool } from 'slonik';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { watchForBrigading } from './brigading.ts';
import { assertReporterIsPerson } from './reporters.ts';
import { createReport, type NewReport, type ReportRow } from './reports.ts';

export async function fileReport(db: DatabasePool, report: NewReport, settings: { brigadeThreshold: number }, audit: AuditContext): Promise<ReportRow> {
  return db.transaction(async (tx) => {
    await assertReporterIsPerson(tx, report.reporterId);
    const row = await createReport(tx, report);
    await recordAudit(tx, {
      context: audit, action: 'report.created', target: { type: 'report', id: row.id },
      after: { target_type: row.target_type, target_id: row.target_id, reason: row.reason, network_block: report.networkHash?.toString('hex') ?? null },
    });
    await watchForBrigading(tx, { id: row.id, target: report.target, networkHash: report.networkHash }, settings.brigadeThreshold);
    return row;
  });
}
