// Restoring what reports hid: whether a target is hidden pending review, and whether auto-hide put it there rather than a reviewer (the latest audit row of its
// hiding names the actor; auto-hide acts as the system). Dismissing the reports of an auto-hidden target restores it; a reviewer's own hide stands.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import type { AuditAction } from '../vocabulary.ts';
import type { ModerationTarget } from './reports.ts';

const HIDING_ACTION: Record<ModerationTarget['type'], AuditAction> = { comment: 'comment.hidden', petition: 'petition.under_review', user: 'user.flagged' };

export function isHidden(db: CommonQueryMethods, target: ModerationTarget): Promise<boolean> {
  const hidden =
    target.type === 'comment'
      ? sql.fragment`SELECT 1 FROM comments WHERE id = ${target.id} AND is_hidden AND deleted_at IS NULL`
      : target.type === 'petition'
        ? sql.fragment`SELECT 1 FROM petitions WHERE id = ${target.id} AND status = 'under_review' AND deleted_at IS NULL`
        : sql.fragment`SELECT 1 FROM users WHERE id = ${target.id} AND flagged_for_review_at IS NOT NULL`;
  return db.exists(sql.type(z.object({}))`${hidden}`);
}

/**
 * Auto-hide hid the target but its record (moderation.auto_hidden, with the count) is missing since
 * that hiding: the activity stopped between the two, and its retry finds the target hidden already.
 */
export async function autoHideRecordOwed(db: CommonQueryMethods, target: ModerationTarget): Promise<boolean> {
  if (!(await isAutoHidden(db, target))) return false;
  const recorded = await db.exists(sql.type(z.object({}))`
    SELECT 1 FROM audit_logs r
    WHERE r.target_id = ${target.id} AND r.target_type = ${target.type} AND r.action = 'moderation.auto_hidden'
      AND r.created_at >= (SELECT max(h.created_at) FROM audit_logs h
                           WHERE h.target_id = ${target.id} AND h.target_type = ${target.type} AND h.action = ${HIDING_ACTION[target.type]})
  `);
  return !recorded;
}

export async function isAutoHidden(db: CommonQueryMethods, target: ModerationTarget): Promise<boolean> {
  if (!(await isHidden(db, target))) return false;
  const hiddenBy = await db.maybeOneFirst(sql.type(z.object({ actor_type: z.string() }))`
    SELECT actor_type FROM audit_logs
    WHERE target_id = ${target.id} AND target_type = ${target.type} AND action = ${HIDING_ACTION[target.type]}
    ORDER BY created_at DESC LIMIT 1
  `);
  return hiddenBy === 'system';
}

/**
 * Resolves the target's open reports as restored; answers their ids.
 * An administrator who restores content directly (POST /v1/admin/comments/{id}/unhide,
 * /v1/admin/petitions/{id}/restore) decides on its open reports too: they are resolved with `restore`, so the
 * queue no longer shows them and their reporters do not hide the target again (reporters.ts). The caller then
 * signals the target's moderation workflow, which recounts, finds nothing open and ends.
 */
export async function resolveReportsOfRestored(tx: CommonQueryMethods, target: ModerationTarget, audit: AuditContext): Promise<readonly string[]> {
  const ids = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE reports SET status = 'resolved', action = 'restore', resolved_by = ${audit.actorId}, resolved_at = now()
    WHERE target_type = ${target.type} AND target_id = ${target.id} AND status = 'open'
    RETURNING id
  `);
  for (const id of ids) {
    await recordAudit(tx, {
      context: audit,
      action: 'report.actioned',
      target: { type: 'report', id },
      before: { status: 'open' },
      after: { action: 'restore', note: null, target_type: target.type, target_id: target.id, reports_resolved: ids.length },
    });
  }
  return ids;
}
