// Memberships and their rules. Every change runs in a transaction that first locks the organization's row, so concurrent additions queue and the tier's member
// limit holds exactly (10 parallel adds into 2 free slots: 2 succeed, 8 get 402). Only people change memberships, never an organization key (assertPerson).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { auditContextOf } from '../audit/audit-log.ts';
import type { Principal } from '../auth/principal.ts';
import { Conflict, NotFound, PaymentRequired } from '../errors/domain-error.ts';
import type { OrganizationRole } from '../vocabulary.ts';
import { warnOfKeysLeftBehind } from './key-creators.ts';
import { lockOrganization } from './queries.ts';
import { ADMINS, ANY_MEMBER, OWNER, assertOrganizationRole, assertPerson, noSuchOrganization } from './roles.ts';
import { tierLimits } from './tiers.ts';

export const MembershipRow = z.object({
  id: z.string().uuid(),
  org_id: z.string().uuid(),
  user_id: z.string().uuid(),
  role: z.enum(['owner', 'admin', 'member']),
  display_name: z.string(),
  user_slug: z.string(),
  created_at: z.string(),
});
export type MembershipRow = z.infer<typeof MembershipRow>;

const SELECT = sql.fragment`
  SELECT m.id, m.org_id, m.user_id, m.role, u.display_name, u.slug AS user_slug, m.created_at
  FROM organization_members m JOIN users u ON u.id = m.user_id`;

function findMembership(db: CommonQueryMethods, orgId: string, membershipId: string) {
  return db.maybeOne(sql.type(MembershipRow)`${SELECT} WHERE m.org_id = ${orgId} AND m.id = ${membershipId}`);
}

async function insertMembership(tx: CommonQueryMethods, orgId: string, userId: string, role: OrganizationRole): Promise<MembershipRow> {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO organization_members (org_id, user_id, role) VALUES (${orgId}, ${userId}, ${role}) RETURNING id
  `);
  return (await findMembership(tx, orgId, id))!;
}

/** The organization's first member, in the transaction that creates it. */
export function addOwner(tx: CommonQueryMethods, orgId: string, userId: string) {
  return insertMembership(tx, orgId, userId, 'owner');
}

/**
 * Adds a user within the tier's member limit; the caller must hold the organization's row lock.
 * Used by direct adds and by accepted invitations alike.
 */
export async function addWithinTier(tx: CommonQueryMethods, orgId: string, tier: string, userId: string, role: 'admin' | 'member'): Promise<MembershipRow> {
  const exists = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM organization_members WHERE org_id = ${orgId} AND user_id = ${userId}
  `);
  if (exists) throw new Conflict('This user is already a member of the organization.', { code: 'already_member' });
  const limits = await tierLimits(tx, tier);
  const used = await tx.oneFirst(sql.type(z.object({ used: z.number() }))`SELECT count(*)::int AS used FROM organization_members WHERE org_id = ${orgId}`);
  if (limits.member_limit !== null && used >= limits.member_limit) {
    throw new PaymentRequired(`The ${tier} tier allows ${limits.member_limit} members (member_limit) and all are taken; a higher tier allows more.`, {
      code: 'member_limit_reached',
    });
  }
  return insertMembership(tx, orgId, userId, role);
}

/** Who asks for a membership change: their credentials, and their request's id for the audit log. */
export type MembershipCaller = { principal: Principal; requestId: string };

export async function addMember(db: DatabasePool, orgId: string, caller: MembershipCaller, input: { userId: string; role: 'admin' | 'member' }) {
  const callerId = assertPerson(caller.principal, 'add members');
  return db.transaction(async (tx) => {
    const org = await lockOrganization(tx, orgId);
    if (!org) throw noSuchOrganization(orgId);
    await assertOrganizationRole(tx, orgId, callerId, ADMINS, 'add members');
    const user = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM users WHERE id = ${input.userId}`);
    if (!user) throw new NotFound(`There is no user ${input.userId}.`, { code: 'user_not_found' });
    return addWithinTier(tx, orgId, org.tier, input.userId, input.role);
  });
}

export async function listMembers(
  db: CommonQueryMethods,
  orgId: string,
  callerId: string,
  options: { role?: OrganizationRole; after?: readonly [string, string]; limit: number },
) {
  await assertOrganizationRole(db, orgId, callerId, ANY_MEMBER, 'see its members');
  const keyset = keysetPage(recencyKey('m'), options.after, 'asc', options.limit);
  return db.any(sql.type(MembershipRow)`
    ${SELECT}
    WHERE m.org_id = ${orgId}
      ${options.role ? sql.fragment`AND m.role = ${options.role}` : sql.fragment``}
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

async function lockedTarget(tx: CommonQueryMethods, orgId: string, membershipId: string): Promise<MembershipRow> {
  if (!(await lockOrganization(tx, orgId))) throw noSuchOrganization(orgId);
  const target = await findMembership(tx, orgId, membershipId);
  if (!target) throw new NotFound(`The organization has no membership ${membershipId}.`, { code: 'membership_not_found' });
  return target;
}

const ownerIsFixed = () =>
  new Conflict("The owner's membership cannot be changed or removed: move ownership to an admin with transfer-ownership first.", { code: 'sole_owner' });

export async function changeRole(db: DatabasePool, orgId: string, caller: MembershipCaller, membershipId: string, role: 'admin' | 'member') {
  const callerId = assertPerson(caller.principal, 'change roles');
  return db.transaction(async (tx) => {
    const target = await lockedTarget(tx, orgId, membershipId);
    await assertOrganizationRole(tx, orgId, callerId, ADMINS, 'change roles');
    if (target.role === 'owner') throw ownerIsFixed();
    await tx.query(sql.typeAlias('void')`UPDATE organization_members SET role = ${role} WHERE id = ${membershipId}`);
    if (target.role === 'admin' && role === 'member') {
      await warnOfKeysLeftBehind(tx, { orgId, userId: target.user_id, reason: 'demoted', audit: auditContextOf(caller.principal, caller.requestId) });
    }
    return (await findMembership(tx, orgId, membershipId))!;
  });
}

/** Admins and the owner remove anyone but the owner; every member may remove themselves. */
export async function removeMember(db: DatabasePool, orgId: string, caller: MembershipCaller, membershipId: string): Promise<void> {
  const callerId = assertPerson(caller.principal, 'remove members');
  await db.transaction(async (tx) => {
    const target = await lockedTarget(tx, orgId, membershipId);
    const leaving = target.user_id === callerId;
    if (!leaving) await assertOrganizationRole(tx, orgId, callerId, ADMINS, 'remove other members');
    if (target.role === 'owner') throw ownerIsFixed();
    await tx.query(sql.typeAlias('void')`DELETE FROM organization_members WHERE id = ${membershipId}`);
    await warnOfKeysLeftBehind(tx, {
      orgId,
      userId: target.user_id,
      reason: leaving ? 'left' : 'removed',
      audit: auditContextOf(caller.principal, caller.requestId),
    });
  });
}

/** The owner hands ownership to an admin and becomes an admin (so keeps the admin role: no keys to rotate). */
export async function transferOwnership(db: DatabasePool, orgId: string, caller: MembershipCaller, membershipId: string) {
  const callerId = assertPerson(caller.principal, 'transfer ownership');
  return db.transaction(async (tx) => {
    const target = await lockedTarget(tx, orgId, membershipId);
    await assertOrganizationRole(tx, orgId, callerId, OWNER, 'transfer ownership');
    if (target.user_id === callerId) throw new Conflict('You already own this organization.', { code: 'already_owner' });
    if (target.role !== 'admin') throw new Conflict('Ownership can only go to an admin member; make them admin first.', { code: 'target_not_admin' });
    // The old owner steps down first: one owner at a time is a unique index.
    await tx.query(sql.typeAlias('void')`UPDATE organization_members SET role = 'admin' WHERE org_id = ${orgId} AND user_id = ${callerId}`);
    await tx.query(sql.typeAlias('void')`UPDATE organization_members SET role = 'owner' WHERE id = ${membershipId}`);
    return (await findMembership(tx, orgId, membershipId))!;
  });
}
