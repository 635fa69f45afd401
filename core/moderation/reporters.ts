// Filing a report and whose reports count (issue 24). A report is made by a person: an organization key acts as the organization's service user, which is
// nobody, so it cannot report (a personal key or an OAuth app counts as its human user). Auto-hide counts distinct people whose reports say something a
// reviewer has not already heard.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { Forbidden } from '../errors/domain-error.ts';
import { ORGANIZATION_ISSUER } from '../organizations/api-keys.ts';
import { watchForBrigading } from './brigading.ts';
import { createReport, type ModerationTarget, type NewReport, type ReportRow } from './reports.ts';

/** Refuses a reporter that is not a person: an organization's service user (its API keys). */
export async function assertReporterIsPerson(db: CommonQueryMethods, reporterId: string): Promise<void> {
  const organization = await db.exists(sql.type(z.object({}))`
    SELECT 1 FROM users WHERE id = ${reporterId} AND identity_issuer = ${ORGANIZATION_ISSUER}
  `);
  if (organization) {
    throw new Forbidden(
      'Reports are made by people: an organization API key cannot report. Report with your own login, personal API key or an app you authorized.',
    );
  }
}

/**
 * Files a report in one transaction: the reporter must be a person; the report is stored with its
 * network block's hash, audited (`report.created`, so the audit log shows every report of a
 * campaign) and checked for brigading, whose alert commits with the report that raised it. The
 * caller then signals the target's moderation workflow.
 */
export async function fileReport(db: DatabasePool, report: NewReport, settings: { brigadeThreshold: number }, audit: AuditContext): Promise<ReportRow> {
  return db.transaction(async (tx) => {
    await assertReporterIsPerson(tx, report.reporterId);
    const row = await createReport(tx, report);
    await recordAudit(tx, {
      context: audit,
      action: 'report.created',
      target: { type: 'report', id: row.id },
      after: { target_type: row.target_type, target_id: row.target_id, reason: row.reason, network_block: report.networkHash?.toString('hex') ?? null },
    });
    await watchForBrigading(tx, { id: row.id, target: report.target, networkHash: report.networkHash }, settings.brigadeThreshold);
    return row;
  });
}

/**
 * Distinct people whose open reports on the target count toward hiding it (see above).
 * A reporter counts when: the account was established when it reported (email verified, older than
 * RALLY_REPORT_MIN_ACCOUNT_AGE; fresh accounts are free to make, and their reports still reach the queue); the
 * person has no earlier report on the target that a reviewer closed (after a restore or a dismissal, only the
 * threshold of NEW people hides it again); and the report's network block was not found brigading the target
 * (brigading.ts).
 */
export function countCountingReporters(db: CommonQueryMethods, target: ModerationTarget, minAccountAgeMs: number) {
  return db.oneFirst(sql.type(z.object({ reporters: z.number() }))`
    SELECT count(DISTINCT r.reporter_id)::int AS reporters
    FROM reports r
    JOIN users u ON u.id = r.reporter_id
    WHERE r.target_type = ${target.type} AND r.target_id = ${target.id} AND r.status = 'open'
      AND u.email_verified AND u.suspended_at IS NULL AND u.identity_issuer <> ${ORGANIZATION_ISSUER}
      AND r.created_at >= u.created_at + make_interval(secs => ${minAccountAgeMs / 1000})
      AND NOT EXISTS (
        SELECT 1 FROM reports earlier
        WHERE earlier.reporter_id = r.reporter_id AND earlier.target_type = r.target_type AND earlier.target_id = r.target_id AND earlier.status <> 'open'
      )
      AND NOT EXISTS (
        SELECT 1 FROM report_brigade_alerts a
        WHERE a.target_type = r.target_type AND a.target_id = r.target_id AND a.network_hash = r.network_hash
      )
  `);
}
