// Asking for an account's deletion (issue 46): one transaction checks what would block it (the last administrator, an organization only they own), ends every
// way of acting as the person, writes the one audit row and starts the `accountDeletion` workflow, which erases the rest in batches (erasure.ts). Asking again
// starts nothing new.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { listRevocations } from '../auth/revocation-list.ts';
import { Conflict, NotFound } from '../errors/domain-error.ts';
import { listAsRevoked } from '../oauth/grants.ts';
import { USER_CHANGED_CHANNEL } from '../users/directory.ts';
import { FORMER_MEMBER_ID } from '../users/former-member.ts';
import { assertAnotherActiveAdmin } from '../users/suspension.ts';

/** The port orchestration/ implements: start (or find) the workflow, and read how it is doing. */
export type AccountDeletionWorkflows = {
  /** `closePetitions`: close their active petitions first (asked again while it runs: the first run's choice holds). */
  startAccountDeletion(userId: string, options: { closePetitions: boolean }): Promise<void>;
  /** The workflow's id, and how its latest run is doing (null: Temporal knows none). */
  accountDeletionProgress(userId: string): Promise<{
    workflowId: string;
    run: { status: 'running' | 'completed' | 'failed'; startedAt: string; closedAt: string | null } | null;
  }>;
};

export type DeletionRequest = {
  userId: string;
  audit: AuditContext;
  /** Required when an administrator deletes someone else; recorded in the audit row. */
  reason: string | null;
  /** The access token that asked stays valid until its own expiry, so it can follow the deletion. */
  keepTokenId?: string;
  accessTokenTtlMs: number;
  /** The creator's choice: close their active petitions instead of leaving them published. */
  closePetitions?: boolean;
};

const Row = z.object({ id: z.string(), role: z.enum(['user', 'admin']), identity_subject: z.string() });
const SoleOwned = z.object({ id: z.string(), slug: z.string(), name: z.string() });
const FamilyToken = z.object({ jti: z.string(), expires_at: z.string() });

async function assertNotSoleOwner(tx: CommonQueryMethods, userId: string): Promise<void> {
  const organizations = await tx.any(sql.type(SoleOwned)`
    SELECT o.id, o.slug, o.name FROM organizations o JOIN organization_members m ON m.org_id = o.id
    WHERE m.user_id = ${userId} AND m.role = 'owner'
      AND NOT EXISTS (SELECT FROM organization_members other WHERE other.org_id = o.id AND other.role = 'owner' AND other.user_id <> ${userId})
    ORDER BY o.slug
  `);
  if (organizations.length === 0) return;
  throw new Conflict(`Transfer ownership first: you are the only owner of ${organizations.map((org) => `"${org.name}" (${org.slug})`).join(', ')}.`, {
    code: 'sole_owner',
    fields: organizations.map((org) => ({ field: `organizations.${org.slug}`, message: `the only owner of ${org.name} (${org.id})`, code: 'sole_owner' })),
  });
}

/** Whether the person's deletion was asked for: its audit row, written once in the request's transaction. */
export function deletionRequested(tx: CommonQueryMethods, userId: string): Promise<boolean> {
  return tx.exists(sql.type(z.object({}))`
    SELECT 1 FROM audit_logs WHERE action = 'user.deleted' AND target_type = 'user' AND target_id = ${userId}
  `);
}

/**
 * Ends every login, session, key and grant of the person, and their account at the embedded provider.
 * Ends every way of acting as the person: refresh tokens and their access tokens, browser sessions, API keys,
 * OAuth grants and the embedded identity provider's account.
 */
export async function revokeEverything(tx: CommonQueryMethods, user: { id: string; identitySubject: string }, keepTokenId: string | undefined, ttlMs: number) {
  const tokens = await tx.any(sql.type(FamilyToken)`
    SELECT f.jti, f.expires_at FROM refresh_token_family_access_tokens f
    WHERE f.expires_at > now() AND f.family_id IN (SELECT family_id FROM refresh_tokens WHERE user_id = ${user.id})
  `);
  await tx.query(sql.typeAlias('void')`UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE user_id = ${user.id}`);
  await listRevocations(
    tx,
    tokens.filter((token) => token.jti !== keepTokenId).map((token) => ({ jti: token.jti, expiresAt: new Date(token.expires_at) })),
  );
  await tx.query(sql.typeAlias('void')`UPDATE browser_sessions SET ended_at = now() WHERE user_id = ${user.id} AND ended_at IS NULL`);
  await tx.query(sql.typeAlias('void')`UPDATE api_keys SET revoked_at = now() WHERE user_id = ${user.id} AND revoked_at IS NULL`);
  const grants = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    DELETE FROM oauth_server_records g WHERE g.model = 'Grant' AND g.payload ->> 'accountId' = ${user.id} RETURNING g.id
  `);
  if (grants.length > 0) {
    await tx.query(sql.typeAlias('void')`DELETE FROM oauth_server_records WHERE grant_id = ANY (${sql.array([...grants], 'text')})`);
    await listAsRevoked(tx, grants, ttlMs);
  }
  await tx.query(sql.typeAlias('void')`DELETE FROM oauth_authorizations WHERE user_id = ${user.id}`);
  // The embedded provider's account and everything it keeps for it (grants, sessions, refresh tokens).
  await tx.query(sql.typeAlias('void')`DELETE FROM identity_provider_records WHERE payload ->> 'accountId' = ${user.identitySubject}`);
  await tx.query(sql.typeAlias('void')`DELETE FROM identity_accounts WHERE id::text = ${user.identitySubject}`);
  await tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${USER_CHANGED_CHANNEL}, ${user.id})`);
}

/** Starts (or finds) the deletion of an account; the workflow is started inside the transaction, so a failed start changes nothing. */
export async function requestAccountDeletion(deps: { db: DatabasePool; workflows: AccountDeletionWorkflows }, request: DeletionRequest): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const user = await tx.maybeOne(sql.type(Row)`SELECT id, role, identity_subject FROM users WHERE id = ${request.userId} FOR UPDATE`);
    if (!user || user.id === FORMER_MEMBER_ID) throw new NotFound('There is no such user.');
    const organizationAccount = await tx.exists(sql.type(z.object({}))`SELECT 1 FROM organizations WHERE service_user_id = ${user.id}`);
    if (organizationAccount)
      throw new Conflict('This is an organization’s own account (it holds its API keys), not a person’s.', { code: 'organization_account' });
    if (user.role === 'admin') await assertAnotherActiveAdmin(tx, user.id);
    await assertNotSoleOwner(tx, user.id);
    await revokeEverything(tx, { id: user.id, identitySubject: user.identity_subject }, request.keepTokenId, request.accessTokenTtlMs);
    if (!(await deletionRequested(tx, user.id))) {
      await recordAudit(tx, {
        context: request.audit,
        action: 'user.deleted',
        target: { type: 'user', id: user.id },
        after: request.reason === null ? null : { reason: request.reason },
      });
    }
    await deps.workflows.startAccountDeletion(user.id, { closePetitions: request.closePetitions ?? false });
  });
}

export type DeletionStatus = {
  user_id: string;
  workflow_id: string;
  status: 'running' | 'completed' | 'failed';
  requested_at: string;
  completed_at: string | null;
};

/**
 * How a deletion is doing: from its workflow while Temporal remembers it, else from the audit row
 * (the workflow's history is kept for the namespace's retention; the audit row for ever). Null: none asked.
 */
export async function deletionStatus(deps: { db: DatabasePool; workflows: AccountDeletionWorkflows }, userId: string): Promise<DeletionStatus | null> {
  const { workflowId, run } = await deps.workflows.accountDeletionProgress(userId);
  const base = { user_id: userId, workflow_id: workflowId };
  if (run) return { ...base, status: run.status, requested_at: run.startedAt, completed_at: run.closedAt };
  const row = await deps.db.maybeOne(sql.type(z.object({ created_at: z.string(), gone: z.boolean() }))`
    SELECT a.created_at, NOT EXISTS (SELECT FROM users WHERE id = ${userId}) AS gone
    FROM audit_logs a WHERE a.action = 'user.deleted' AND a.target_type = 'user' AND a.target_id = ${userId}
    ORDER BY a.created_at LIMIT 1
  `);
  if (!row) return null;
  return { ...base, status: row.gone ? 'completed' : 'running', requested_at: row.created_at, completed_at: null };
}
