// Warnings from administrators: stored, shown to the user as a notification at once, and emailed
// by a workflow (workflows/warning-email.ts) so a mail server that is down delays but never loses it.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { NotFound } from '../errors/domain-error.ts';
import { notifyUsers } from '../notifications/create.ts';

export const WarningRow = z.object({
  id: z.string(),
  user_id: z.string(),
  issued_by: z.string(),
  reason: z.string(),
  message: z.string(),
  emailed_at: z.string().nullable(),
  created_at: z.string(),
  position_at: z.string(),
});
export type WarningRow = z.infer<typeof WarningRow>;

const WARNING_COLUMNS = sql.fragment`id, user_id, issued_by, reason, message, emailed_at, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at`;

export type NewWarning = { userId: string; issuedBy: string; reason: string; message: string };

export async function createWarning(tx: CommonQueryMethods, warning: NewWarning, audit: AuditContext): Promise<WarningRow> {
  const exists = await tx.exists(sql.type(z.object({}))`SELECT 1 FROM users WHERE id = ${warning.userId}`);
  if (!exists) throw new NotFound('There is no such user.');
  const row = await tx.one(sql.type(WarningRow)`
    INSERT INTO user_warnings (user_id, issued_by, reason, message) VALUES (${warning.userId}, ${warning.issuedBy}, ${warning.reason}, ${warning.message})
    RETURNING ${WARNING_COLUMNS}
  `);
  await notifyUsers(tx, [
    {
      userId: warning.userId,
      type: 'moderation.warning',
      title: 'A warning from the moderators',
      body: warning.message,
      data: { warning_id: row.id, reason: warning.reason },
      dedupeKey: `warning:${row.id}`,
    },
  ]);
  await recordAudit(tx, {
    context: audit,
    action: 'user.warned',
    target: { type: 'user', id: warning.userId },
    after: { warning_id: row.id, reason: warning.reason },
  });
  return row;
}

export function findWarning(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(WarningRow)`SELECT ${WARNING_COLUMNS} FROM user_warnings WHERE id = ${id}`);
}

export function listWarnings(db: CommonQueryMethods, userId: string | undefined, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(recencyKey(), after, 'desc', limit);
  const conditions = [userId ? sql.fragment`user_id = ${userId}` : null, keyset.where].filter((condition) => condition !== null);
  return db.any(sql.type(WarningRow)`
    SELECT ${WARNING_COLUMNS} FROM user_warnings
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ${keyset.orderAndLimit}
  `);
}

export function presentWarning(row: WarningRow) {
  const { position_at: _position, ...warning } = row;
  return warning;
}

/** The warning's email, sent by a workflow (workflows/warning-email.ts, started by orchestration/), once per warning. */
export type WarningWorkflows = { emailWarning(warningId: string, userId: string): Promise<void> };

/** For the email activity: the warning and its recipient, unless it was already emailed. */
export function pendingWarningEmail(db: CommonQueryMethods, warningId: string) {
  return db.maybeOne(sql.type(z.object({ email: z.string(), display_name: z.string(), reason: z.string(), message: z.string() }))`
    SELECT u.email, u.display_name, w.reason, w.message FROM user_warnings w JOIN users u ON u.id = w.user_id
    WHERE w.id = ${warningId} AND w.emailed_at IS NULL
  `);
}

export async function markWarningEmailed(db: CommonQueryMethods, warningId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`UPDATE user_warnings SET emailed_at = now() WHERE id = ${warningId} AND emailed_at IS NULL`);
}
