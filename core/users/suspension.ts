// Suspending and unsuspending users, role changes and review flags: each is one transaction that changes the user, writes its audit row and NOTIFYs
// rally_user_changed, so every API process drops the user from its directory cache at commit and refuses their tokens at once (API keys are checked against the
// database on every request). A timed suspension ends through a workflow timer (workflows/user-suspension.ts), never an in-process one.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordAudit, type AuditContext } from '../audit/audit-log.ts';
import { Conflict, NotFound } from '../errors/domain-error.ts';
import { USER_CHANGED_CHANNEL } from './directory.ts';
import { findAdminUser, type AdminUserRow } from './admin-queries.ts';

const announce = (tx: CommonQueryMethods, userId: string) => tx.query(sql.typeAlias('void')`SELECT FROM pg_notify(${USER_CHANGED_CHANNEL}, ${userId})`);

const stateOf = (user: AdminUserRow) => ({
  role: user.role,
  suspended_at: user.suspended_at,
  suspended_until: user.suspended_until,
  suspension_reason: user.suspension_reason,
  flagged_for_review_at: user.flagged_for_review_at,
});

/** Locks the user row; 404 when there is none. */
async function lockedUser(tx: CommonQueryMethods, userId: string): Promise<AdminUserRow> {
  await tx.query(sql.typeAlias('void')`SELECT FROM users WHERE id = ${userId} FOR UPDATE`);
  const user = await findAdminUser(tx, userId);
  if (!user) throw new NotFound('There is no such user.');
  return user;
}

/**
 * Refuses to leave the platform without an active administrator. Locks every active admin row, so
 * two admins suspending or demoting each other at once cannot both succeed.
 */
export async function assertAnotherActiveAdmin(tx: CommonQueryMethods, userId: string): Promise<void> {
  const others = await tx.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM users WHERE role = 'admin' AND suspended_at IS NULL ORDER BY id FOR UPDATE
  `);
  if (!others.some((id) => id !== userId))
    throw new Conflict('This is the last active administrator; make another administrator first.', { code: 'last_admin' });
}

export type Suspension = { userId: string; reason: string | null; until: string | null };

export async function suspendUser(db: DatabasePool, suspension: Suspension, audit: AuditContext): Promise<AdminUserRow> {
  if (audit.actorId === suspension.userId) throw new Conflict('Administrators cannot suspend themselves.', { code: 'cannot_suspend_self' });
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, suspension.userId);
    if (before.role === 'admin') await assertAnotherActiveAdmin(tx, suspension.userId);
    await tx.query(sql.typeAlias('void')`
      UPDATE users SET suspended_at = COALESCE(suspended_at, now()), suspension_reason = ${suspension.reason},
        suspended_until = ${suspension.until}::timestamptz, updated_at = now()
      WHERE id = ${suspension.userId}
    `);
    const after = (await findAdminUser(tx, suspension.userId))!;
    await recordAudit(tx, {
      context: audit,
      action: 'user.suspended',
      target: { type: 'user', id: suspension.userId },
      before: stateOf(before),
      after: stateOf(after),
    });
    await announce(tx, suspension.userId);
    return after;
  });
}

/**
 * Lifts a suspension. `onlyIfSuspendedAt` makes the timer's call a no-op when the suspension it was
 * set for was lifted or replaced meanwhile. Null when there was nothing to lift.
 */
export async function unsuspendUser(db: DatabasePool, userId: string, audit: AuditContext, onlyIfSuspendedAt?: string): Promise<AdminUserRow | null> {
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, userId);
    if (!before.suspended_at) return null;
    if (onlyIfSuspendedAt !== undefined && Date.parse(before.suspended_at) !== Date.parse(onlyIfSuspendedAt)) return null;
    await tx.query(sql.typeAlias('void')`
      UPDATE users SET suspended_at = NULL, suspension_reason = NULL, suspended_until = NULL, updated_at = now() WHERE id = ${userId}
    `);
    const after = (await findAdminUser(tx, userId))!;
    await recordAudit(tx, { context: audit, action: 'user.unsuspended', target: { type: 'user', id: userId }, before: stateOf(before), after: stateOf(after) });
    await announce(tx, userId);
    return after;
  });
}

export async function setUserRole(db: DatabasePool, userId: string, role: 'user' | 'admin', audit: AuditContext): Promise<AdminUserRow> {
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, userId);
    if (before.role === role) return before;
    if (before.role === 'admin') await assertAnotherActiveAdmin(tx, userId);
    await tx.query(sql.typeAlias('void')`UPDATE users SET role = ${role}, updated_at = now() WHERE id = ${userId}`);
    const after = (await findAdminUser(tx, userId))!;
    await recordAudit(tx, {
      context: audit,
      action: 'user.role_changed',
      target: { type: 'user', id: userId },
      before: stateOf(before),
      after: stateOf(after),
    });
    await announce(tx, userId);
    return after;
  });
}

/** Sets or clears the review flag; false when it was already so. */
export async function flagUserForReview(tx: CommonQueryMethods, userId: string, flagged: boolean, audit: AuditContext): Promise<boolean> {
  const changed = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE users SET flagged_for_review_at = CASE WHEN ${flagged} THEN now() ELSE NULL END, updated_at = now()
    WHERE id = ${userId} AND (flagged_for_review_at IS NULL) = ${flagged}
    RETURNING id
  `);
  if (!changed) return false;
  await recordAudit(tx, {
    context: audit,
    action: flagged ? 'user.flagged' : 'user.unflagged',
    target: { type: 'user', id: userId },
    before: { flagged_for_review: !flagged },
    after: { flagged_for_review: flagged },
  });
  return true;
}

/** The timer that lifts a timed suspension (workflows/user-suspension.ts, started by orchestration/). */
export type SuspensionWorkflows = { endSuspensionAt(suspension: { userId: string; suspendedAt: string; until: string }): Promise<void> };

/** Starts the timer that lifts a timed suspension; an indefinite one has none. */
export async function scheduleSuspensionEnd(deps: { workflows: SuspensionWorkflows }, user: AdminUserRow): Promise<void> {
  if (!user.suspended_until || !user.suspended_at) return;
  await deps.workflows.endSuspensionAt({ userId: user.id, suspendedAt: user.suspended_at, until: user.suspended_until });
}
