// The two things the moderation workflow (workflows/moderation.ts) does to the database: hide a target once enough established people reported it
// (core/moderation/reporters.ts says who counts), and apply a reviewer's decision on a report. Both are safe to repeat: a retried activity finds the work done
// and changes nothing twice.
import type { DatabasePool } from 'slonik';
import { recordAudit, SYSTEM_AUDIT, type AuditContext } from '../audit/audit-log.ts';
import { Conflict, NotFound } from '../errors/domain-error.ts';
import { findAdminUser } from '../users/admin-queries.ts';
import { suspendUser } from '../users/suspension.ts';
import type { ModerationAction } from '../vocabulary.ts';
import { authorOf, hideTarget, movableFrom, movePetition, PETITION_MOVES, removeComment, restoreTarget, type EffectDependencies } from './effects.ts';
import { autoHideRecordOwed, isAutoHidden, isHidden } from './restoring.ts';
import { countCountingReporters } from './reporters.ts';
import { countOpenReporters, findReport, presentReport, resolveOpenReports, type ModerationTarget, type ReportRow } from './reports.ts';
import { createWarning } from './warnings.ts';

/** `reporters`: everyone with an open report (the workflow runs while there are any); `counted`: those who count. */
export type AutoHideOutcome = { reporters: number; counted: number; threshold: number; hidden: boolean };
export type AutoHideSettings = { threshold: number; minAccountAgeMs: number };

/** Hides the target pending review when `threshold` people who count have an open report on it. */
export async function hideIfReportedEnough(deps: EffectDependencies & AutoHideSettings, target: ModerationTarget): Promise<AutoHideOutcome> {
  // The status is read before the count: a restore resolves the reports before the petition is active
  // again, so a petition still hideable here cannot be hidden on reports its restore resolved.
  const hideable = target.type !== 'petition' || (await movableFrom(deps.db, target.id, PETITION_MOVES.hold, false)) !== null;
  const reporters = await countOpenReporters(deps.db, target);
  const counted = await countCountingReporters(deps.db, target, deps.minAccountAgeMs);
  const outcome = { reporters, counted, threshold: deps.threshold };
  if (counted < deps.threshold) return { ...outcome, hidden: false };
  const hidden = hideable && (await hideTarget(deps, target, SYSTEM_AUDIT));
  // A retry after a stop between hiding and recording finds the target hidden: the record is still owed.
  if (hidden || (await autoHideRecordOwed(deps.db, target))) {
    await recordAudit(deps.db, {
      context: SYSTEM_AUDIT,
      action: 'moderation.auto_hidden',
      target,
      after: { reporters: counted, open_reporters: reporters, threshold: deps.threshold },
    });
  }
  return { ...outcome, hidden };
}

export type ModerationDecision = { reportId: string; action: ModerationAction; note: string | null; audit: AuditContext };
export type DecisionOutcome = { report: ReturnType<typeof presentReport>; warning: { id: string; user_id: string } | null };

async function applyEffect(deps: EffectDependencies, target: ModerationTarget, decision: ModerationDecision, reason: string): Promise<void> {
  const { audit } = decision;
  switch (decision.action) {
    case 'dismiss':
      // "Not abusive": what auto-hide hid comes back; what a reviewer hid stays hidden.
      if (await isAutoHidden(deps.db, target)) await restoreTarget(deps, target, audit);
      return;
    case 'hide':
      await hideTarget(deps, target, audit);
      return;
    case 'restore':
      await restoreTarget(deps, target, audit);
      return;
    case 'remove':
      // Out for good: a comment is deleted, a petition closed (its signatures kept), a user suspended.
      if (target.type === 'comment') await deps.db.transaction((tx) => removeComment(tx, target.id, audit));
      else if (target.type === 'petition') await movePetition(deps, target.id, PETITION_MOVES.close, audit, false);
      else await suspendUnlessSuspended(deps.db, target.id, decision.note ?? `Reported for ${reason}`, audit);
      return;
    case 'suspend_user':
      await suspendUnlessSuspended(deps.db, await authorOf(deps.db, target), decision.note ?? `Reported for ${reason}`, audit);
      return;
    case 'warn_user':
      // In the resolving transaction (below), so a retry cannot warn twice.
      return;
  }
}

async function suspendUnlessSuspended(db: DatabasePool, userId: string, reason: string, audit: AuditContext): Promise<void> {
  const user = await findAdminUser(db, userId);
  if (!user) throw new NotFound('There is no such user.');
  if (!user.suspended_at) await suspendUser(db, { userId, reason, until: null }, audit);
}

/** Applies the decision to the report's target, then resolves every open report on that target. */
export async function applyModerationDecision(deps: EffectDependencies, decision: ModerationDecision): Promise<DecisionOutcome> {
  const report = await findReport(deps.db, decision.reportId);
  if (!report) throw new NotFound('There is no such report.');
  const target: ModerationTarget = { type: report.target_type, id: report.target_id };
  if (report.status !== 'open') {
    // A retry of the decision that closed it answers as the first run did.
    if (report.action === decision.action && report.resolved_by === decision.audit.actorId) return { report: presentReport(report), warning: null };
    if (decision.action === 'restore' && (await isHidden(deps.db, target))) return restoreAfterClosing(deps, report, target, decision);
    throw new Conflict(`This report is already ${report.status}.`, { code: 'report_not_open' });
  }
  await applyEffect(deps, target, decision, report.reason);
  const warning = await deps.db.transaction(async (tx) => {
    let warned: DecisionOutcome['warning'] = null;
    if (decision.action === 'warn_user') {
      const userId = await authorOf(tx, target);
      const message = decision.note ?? `Something you posted was reported for ${report.reason} and reviewed by a moderator. Please follow the community rules.`;
      const created = await createWarning(tx, { userId, issuedBy: decision.audit.actorId ?? userId, reason: report.reason, message }, decision.audit);
      warned = { id: created.id, user_id: created.user_id };
    }
    const resolved = await resolveOpenReports(tx, target, { action: decision.action, note: decision.note, resolvedBy: decision.audit.actorId });
    await recordAudit(tx, {
      context: decision.audit,
      action: 'report.actioned',
      target: { type: 'report', id: report.id },
      before: { status: 'open' },
      after: { action: decision.action, note: decision.note, target_type: target.type, target_id: target.id, reports_resolved: resolved },
    });
    return warned;
  });
  return { report: presentReport((await findReport(deps.db, decision.reportId))!), warning };
}

/**
 * `restore` on a report closed while its target stayed hidden (dismissed before dismissal restored,
 * or hidden again by a reviewer since): the target comes back; the closed report keeps its decision.
 */
async function restoreAfterClosing(
  deps: EffectDependencies,
  report: ReportRow,
  target: ModerationTarget,
  decision: ModerationDecision,
): Promise<DecisionOutcome> {
  await restoreTarget(deps, target, decision.audit);
  await deps.db.transaction(async (tx) => {
    const count = await resolveOpenReports(tx, target, { action: 'restore', note: decision.note, resolvedBy: decision.audit.actorId });
    await recordAudit(tx, {
      context: decision.audit,
      action: 'report.actioned',
      target: { type: 'report', id: report.id },
      before: { status: report.status },
      after: { action: 'restore', note: decision.note, target_type: target.type, target_id: target.id, reports_resolved: count },
    });
  });
  return { report: presentReport(report), warning: null };
}
