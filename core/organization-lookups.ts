// Lookups about organizations that the petition kernel needs as much as organizations/ does: does it
// exist, which role a user holds in it, which ones a user administers. Kept outside organizations/ so
// petitions/ imports no aggregate; read on every request, never cached (a removed member loses access at once).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import type { OrganizationRole } from './vocabulary.ts';

const RoleRow = z.object({ role: z.enum(['owner', 'admin', 'member']) });

// The organization's own API keys belong to its service user, which acts as an admin without being a member.
export const roleOf = (orgId: string, userId: string) => sql.fragment`
  SELECT role FROM organization_members WHERE org_id = ${orgId} AND user_id = ${userId}
  UNION ALL
  SELECT 'admin' FROM organizations WHERE id = ${orgId} AND service_user_id = ${userId}
  LIMIT 1`;

export async function roleIn(db: CommonQueryMethods, orgId: string, userId: string | undefined): Promise<OrganizationRole | null> {
  if (!userId) return null;
  return db.maybeOneFirst(sql.type(RoleRow)`${roleOf(orgId, userId)}`);
}

export async function organizationExists(db: CommonQueryMethods, orgId: string): Promise<boolean> {
  return (await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM organizations WHERE id = ${orgId}`)) !== null;
}

/** The organizations whose petitions the user manages: as owner or admin, or as an organization's own key. */
export async function administeredOrganizationIds(db: CommonQueryMethods, userId: string): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ org_id: z.string() }))`
    SELECT org_id FROM organization_members WHERE user_id = ${userId} AND role IN ('owner', 'admin')
    UNION
    SELECT id AS org_id FROM organizations WHERE service_user_id = ${userId}
  `);
}
