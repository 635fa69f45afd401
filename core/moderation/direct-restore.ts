// An administrator who restores content directly (POST /v1/admin/comments/{id}/unhide,
// /v1/admin/petitions/{id}/restore) decides on its open reports too: they are resolved with
// `restore`, as a `restore` decision on one of them would, so the queue no longer shows them and
// their reporters do not hide the target again (core/moderation/reporters.ts). The caller then
// signals the target's moderation workflow, which recounts, finds nothing open and ends.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import type { ModerationTarget } from './reports.ts';

/** Resolves the target's open reports as restored; answers their ids. */
export async function resolveReportsOfRestored(tx: CommonQueryMethods, target: ModerationTarget, audit: AuditContext): Promise<readonly string[]> {
  const ids = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE reports SET status = 'resolved', action = 'restore', resolved_by = ${audit.actorId}, resolved_at = now()
    WHERE target_type = ${target.type} AND target_id = ${target.id} AND status = 'open'
    RETURNING id
  `);
  for (const id of ids) {
    await recordAudit(tx, {
      context: audit, action: 'report.actioned', target: { type: 'report', id },
      before: { status: 'open' }, after: { action: 'restore', note: null, target_type: target.type, target_id: target.id, reports_resolved: ids.length },
    });
  }
  return ids;
}
