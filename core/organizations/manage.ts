// Creating, changing and deleting an organization. The creator becomes its owner in the same
// transaction; a name (case-insensitively) or slug already taken is a 409 through the constraint table.
import type { DatabasePool } from 'slonik';
import { slugify } from '../slugs.ts';
import { revokeOrganizationKeys } from './api-keys.ts';
import { addOwner } from './members.ts';
import { deleteOrganization, findOrganizationById, insertOrganization, updateOrganization, type OrganizationChanges } from './queries.ts';
import { ADMINS, OWNER, assertOrganizationRole, noSuchOrganization } from './roles.ts';

export type OrganizationDraft = { name: string; description?: string; logoUrl?: string; website?: string };

export async function createOrganization(db: DatabasePool, creatorId: string, draft: OrganizationDraft) {
  return db.transaction(async (tx) => {
    const id = await insertOrganization(tx, { ...draft, slug: slugify(draft.name) });
    await addOwner(tx, id, creatorId);
    return (await findOrganizationById(tx, id))!;
  });
}

export async function changeOrganization(db: DatabasePool, orgId: string, callerId: string, changes: OrganizationChanges) {
  return db.transaction(async (tx) => {
    await assertOrganizationRole(tx, orgId, callerId, ADMINS, 'change it');
    await updateOrganization(tx, orgId, changes);
    const org = await findOrganizationById(tx, orgId);
    if (!org) throw noSuchOrganization(orgId);
    return org;
  });
}

/**
 * Only the owner deletes. The petitions stay with their creators (the foreign key clears org_id),
 * the memberships go with the organization, its API keys are revoked.
 */
export async function removeOrganization(db: DatabasePool, orgId: string, callerId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await assertOrganizationRole(tx, orgId, callerId, OWNER, 'delete it');
    await revokeOrganizationKeys(tx, orgId);
    await deleteOrganization(tx, orgId);
  });
}
