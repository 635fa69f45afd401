// Who is what in an organization. Read from the database on every request, never cached: removing
// a member or changing a role takes effect on their very next request.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import type { Principal } from '../auth/principal.ts';
import { Forbidden, NotFound } from '../errors/domain-error.ts';
import { roleIn, roleOf } from '../organization-lookups.ts';
import type { OrganizationRole } from '../vocabulary.ts';

/** Owners and admins manage the organization and its petitions. */
export async function isOrganizationAdmin(db: CommonQueryMethods, orgId: string | null, userId: string | undefined): Promise<boolean> {
  if (!orgId) return false;
  const role = await roleIn(db, orgId, userId);
  return role === 'owner' || role === 'admin';
}

/** The answer for an organization that does not exist, or no longer: deleted while a request was under way. */
export const noSuchOrganization = (orgId: string) => new NotFound(`There is no organization ${orgId}.`);

/**
 * The caller's role, when it is one of `allowed`: 404 for an unknown organization, 403 for a
 * caller without one of the roles (members and non-members alike; the organization is public).
 */
export async function assertOrganizationRole(
  db: CommonQueryMethods,
  orgId: string,
  userId: string,
  allowed: readonly OrganizationRole[],
  action: string,
): Promise<OrganizationRole> {
  const found = await db.maybeOne(sql.type(z.object({ role: z.string().nullable() }))`
    SELECT (${roleOf(orgId, userId)}) AS role FROM organizations o WHERE o.id = ${orgId}
  `);
  if (!found) throw noSuchOrganization(orgId);
  const role = found.role as OrganizationRole | null;
  if (!role || !allowed.includes(role)) {
    const needed = allowed.length === 3 ? 'a member' : allowed.length === 1 ? `the ${allowed[0]}` : `an ${allowed.join(' or ')}`;
    throw new Forbidden(`Only ${needed} of this organization may ${action}.`, { code: role ? 'organization_role_required' : 'not_a_member' });
  }
  return role;
}

/**
 * Who is in an organization is for people to decide. An organization key acts for the organization as
 * an admin, but whoever holds one (a departed admin, a leaked CI secret) must not add themselves or
 * others, remove anyone, change roles, invite, accept an invitation or move ownership. Answers the
 * person's user id.
 */
export function assertPerson(principal: Principal, action: string): string {
  if (principal.organizationKey) {
    throw new Forbidden(`An organization API key cannot ${action}: membership changes need a person (log in, or use a personal API key).`);
  }
  return principal.userId;
}

/**
 * Personal keys are a person's. Made with an organization key they would belong to the organization's
 * service user: more keys acting as its admin, past its tier's api_key_limit and with nobody recorded
 * as their creator. `instead` names the organization route that does the job.
 */
export function assertNotOrganizationKey(principal: Principal, action: string, instead: string): void {
  if (principal.organizationKey) throw new Forbidden(`An organization API key cannot ${action}; use ${instead} for the organization's keys.`);
}

/**
 * The person accountable for what a principal does: the user, or for an organization key the person
 * who created it (null when unknown). A key an organization key creates is that person's too.
 */
export const accountablePerson = (principal: Principal): string | null => (principal.organizationKey ? principal.organizationKey.createdBy : principal.userId);

export const ANY_MEMBER: readonly OrganizationRole[] = ['owner', 'admin', 'member'];
export const ADMINS: readonly OrganizationRole[] = ['owner', 'admin'];
export const OWNER: readonly OrganizationRole[] = ['owner'];
