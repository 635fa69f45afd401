// The audit log: who did what to which resource, how they authenticated, what it was before and
// after, and under which request. Rows are written in the transaction that makes the change, and
// never change afterwards (migration 0012's trigger refuses UPDATE, DELETE and TRUNCATE).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import type { Principal } from '../auth/principal.ts';
import type { AuditAction } from '../vocabulary.ts';

/** Who acts, as plain data: it travels in workflow arguments to the activity that writes the row. */
export type AuditContext = {
  actorType: 'user' | 'api_key' | 'system' | 'cli';
  /** The acting user (for an API key, its owner); null for the system. */
  actorId: string | null;
  /** `access_token:<jti>`, `api_key:<key id>`, `cli` or `system`. */
  credential: string;
  requestId: string | null;
};

export const SYSTEM_AUDIT: AuditContext = { actorType: 'system', actorId: null, credential: 'system', requestId: null };

export function auditContextOf(principal: Principal, requestId: string): AuditContext {
  return principal.kind === 'api_key'
    ? { actorType: 'api_key', actorId: principal.userId, credential: `api_key:${principal.apiKeyId ?? 'unknown'}`, requestId }
    : { actorType: 'user', actorId: principal.userId, credential: `access_token:${principal.tokenId ?? 'unknown'}`, requestId };
}

export type AuditEntry = {
  context: AuditContext;
  action: AuditAction;
  target: { type: string; id: string };
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
};

export async function recordAudit(tx: CommonQueryMethods, entry: AuditEntry): Promise<void> {
  const { context } = entry;
  await tx.query(sql.typeAlias('void')`
    INSERT INTO audit_logs (actor_type, actor_id, credential, action, target_type, target_id, before, after, request_id)
    VALUES (${context.actorType}, ${context.actorId}, ${context.credential}, ${entry.action}, ${entry.target.type}, ${entry.target.id},
      ${entry.before ? sql.jsonb(entry.before as never) : null}, ${entry.after ? sql.jsonb(entry.after as never) : null}, ${context.requestId})
  `);
}

export const AuditRow = z.object({
  id: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  credential: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  request_id: z.string().nullable(),
  created_at: z.string(),
  // created_at with microseconds, for the cursor.
  position_at: z.string(),
});
export type AuditRow = z.infer<typeof AuditRow>;

export type AuditFilters = { actorId?: string; action?: string; targetType?: string; since?: string };

/** Newest first, keyset-paginated on (created_at, id); each filter has an index of its own. */
export function listAuditLogs(db: CommonQueryMethods, filters: AuditFilters, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(recencyKey(), after, 'desc', limit);
  const conditions = [
    filters.actorId ? sql.fragment`actor_id = ${filters.actorId}` : null,
    filters.action ? sql.fragment`action = ${filters.action}` : null,
    filters.targetType ? sql.fragment`target_type = ${filters.targetType}` : null,
    filters.since ? sql.fragment`created_at >= ${filters.since}::timestamptz` : null,
    keyset.where,
  ].filter((condition) => condition !== null);
  return db.any(sql.type(AuditRow)`
    SELECT id, actor_type, actor_id, credential, action, target_type, target_id, before, after, request_id, created_at,
      to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at
    FROM audit_logs
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ${keyset.orderAndLimit}
  `);
}

export function presentAuditRow(row: AuditRow) {
  const { position_at: _position, ...entry } = row;
  return entry;
}
