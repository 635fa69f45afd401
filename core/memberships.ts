// Membership facts, read by the petition kernel (who manages a petition, who may create one under an
// organization) and by the organizations aggregate alike. They live beside the aggregates rather than
// in organizations/ so that petitions, which the others build on, import no aggregate of its own.
// Read from the database on every request, never cached: a removed member or changed role takes
// effect on their very next request.
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
