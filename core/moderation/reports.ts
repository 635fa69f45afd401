// Reports: made by any signed-in user about something they can see, listed and resolved by admins.
// While a report is open its reporter cannot report the same target again (reports_one_open_per_reporter).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { NotFound } from '../errors/domain-error.ts';
import { knownTo } from '../petitions/policy.ts';
import { REPORT_STATUSES, REPORT_TARGET_TYPES, type ModerationAction, type ReportStatus, type ReportTargetType } from '../vocabulary.ts';

export type ModerationTarget = { type: ReportTargetType; id: string };

export const ReportRow = z.object({
  id: z.string(),
  reporter_id: z.string().nullable(),
  target_type: z.enum(REPORT_TARGET_TYPES),
  target_id: z.string(),
  reason: z.string(),
  description: z.string().nullable(),
  status: z.enum(REPORT_STATUSES),
  action: z.string().nullable(),
  resolution_note: z.string().nullable(),
  resolved_by: z.string().nullable(),
  resolved_at: z.string().nullable(),
  created_at: z.string(),
  position_at: z.string(),
});
export type ReportRow = z.infer<typeof ReportRow>;

const REPORT_COLUMNS = sql.fragment`id, reporter_id, target_type, target_id, reason, description, status, action, resolution_note, resolved_by,
  resolved_at, created_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at`;
const REPORT_SELECT = sql.fragment`SELECT ${REPORT_COLUMNS} FROM reports`;

/** The target exists and the reporter may see it; otherwise it is unknown to them (404). */
async function assertReportable(db: CommonQueryMethods, reporterId: string, target: ModerationTarget): Promise<void> {
  // Whoever may know of a petition may report it; reporting moderators gain nothing from their role.
  const reporter = { userId: reporterId, role: 'user', administeredOrganizationIds: [] } as const;
  const visible =
    target.type === 'petition'
      ? sql.fragment`SELECT 1 FROM petitions p WHERE p.id = ${target.id} AND ${knownTo(reporter)}`
      : target.type === 'comment'
        ? sql.fragment`SELECT 1 FROM comments WHERE id = ${target.id} AND deleted_at IS NULL AND (NOT is_hidden OR user_id = ${reporterId})`
        : sql.fragment`SELECT 1 FROM users WHERE id = ${target.id}`;
  const found = await db.exists(sql.type(z.object({}))`${visible}`);
  if (!found) throw new NotFound(`There is no such ${target.type}.`);
}

/** `networkHash`: the keyed hash of the reporter's network block (core/signatures/network-block.ts), never the address. */
export type NewReport = { reporterId: string; target: ModerationTarget; reason: string; description: string | null; networkHash: Buffer | null };

export async function createReport(db: CommonQueryMethods, report: NewReport): Promise<ReportRow> {
  await assertReportable(db, report.reporterId, report.target);
  // A duplicate open report breaks reports_one_open_per_reporter: 409 through core/errors/constraints.ts.
  return db.one(sql.type(ReportRow)`
    INSERT INTO reports (reporter_id, target_type, target_id, reason, description, network_hash)
    VALUES (${report.reporterId}, ${report.target.type}, ${report.target.id}, ${report.reason}, ${report.description},
      ${report.networkHash ? sql.binary(report.networkHash) : null})
    RETURNING ${REPORT_COLUMNS}
  `);
}

export function findReport(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(ReportRow)`${REPORT_SELECT} WHERE id = ${id}`);
}

export type ReportFilters = { status?: ReportStatus; targetType?: ReportTargetType };

export function listReports(db: CommonQueryMethods, filters: ReportFilters, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(recencyKey(), after, 'desc', limit);
  const conditions = [
    filters.status ? sql.fragment`status = ${filters.status}` : null,
    filters.targetType ? sql.fragment`target_type = ${filters.targetType}` : null,
    keyset.where,
  ].filter((condition) => condition !== null);
  return db.any(sql.type(ReportRow)`
    ${REPORT_SELECT}
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ${keyset.orderAndLimit}
  `);
}

/** Distinct users with an open report on the target: the moderation workflow runs while there are any. */
export function countOpenReporters(db: CommonQueryMethods, target: ModerationTarget) {
  return db.oneFirst(sql.type(z.object({ reporters: z.number() }))`
    SELECT count(DISTINCT reporter_id)::int AS reporters FROM reports WHERE target_type = ${target.type} AND target_id = ${target.id} AND status = 'open'
  `);
}

/** Closes every open report on the target with the reviewer's decision; returns how many. */
export async function resolveOpenReports(
  tx: CommonQueryMethods,
  target: ModerationTarget,
  decision: { action: ModerationAction; note: string | null; resolvedBy: string | null },
): Promise<number> {
  const status: ReportStatus = decision.action === 'dismiss' ? 'dismissed' : 'resolved';
  const result = await tx.query(sql.typeAlias('void')`
    UPDATE reports SET status = ${status}, action = ${decision.action}, resolution_note = ${decision.note},
    resolved_by = ${decision.resolvedBy}, resolved_at = now()
    WHERE target_type = ${target.type} AND target_id = ${target.id} AND status = 'open'
  `);
  return result.rowCount;
}

export function presentReport(row: ReportRow) {
  const { position_at: _position, ...report } = row;
  return report;
}
