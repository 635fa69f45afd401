// SQL for organizations and their public profile. Counts (members, petitions) are computed on read
// over indexed paths; membership rules live in members.ts, tiers in subscription.ts.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import { ANONYMOUS, listedTo } from '../petitions/policy.ts';

export const OrganizationRow = z.object({
  id: z.string().uuid(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  logo_url: z.string().nullable(),
  website: z.string().nullable(),
  verified: z.boolean(),
  tier: z.string(),
  member_count: z.number(),
  petition_count: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OrganizationRow = z.infer<typeof OrganizationRow>;

// Public counts: petitions anyone may read (listed, not drafts or under review).
const SELECT = sql.fragment`
  SELECT o.id, o.slug, o.name, o.description, o.logo_url, o.website, o.verified, o.tier,
    (SELECT count(*) FROM organization_members m WHERE m.org_id = o.id)::int AS member_count,
    (SELECT count(*) FROM petitions p WHERE p.org_id = o.id AND ${listedTo(ANONYMOUS)})::int AS petition_count,
    o.created_at, o.updated_at
  FROM organizations o`;

export type OrganizationFields = { name: string; slug: string; description?: string; logoUrl?: string; website?: string };

export async function insertOrganization(db: CommonQueryMethods, fields: OrganizationFields): Promise<string> {
  return db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO organizations (slug, name, description, logo_url, website)
    VALUES (${fields.slug}, ${fields.name}, ${fields.description ?? null}, ${fields.logoUrl ?? null}, ${fields.website ?? null})
    RETURNING id
  `);
}

export function findOrganizationById(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(OrganizationRow)`${SELECT} WHERE o.id = ${id}`);
}

export function findOrganizationBySlug(db: CommonQueryMethods, slug: string) {
  return db.maybeOne(sql.type(OrganizationRow)`${SELECT} WHERE o.slug = ${slug.toLowerCase()}`);
}

export function listOrganizations(db: CommonQueryMethods, options: { verifiedOnly: boolean; after?: readonly [string, string]; limit: number }) {
  const keyset = keysetPage(recencyKey('o'), options.after, 'desc', options.limit);
  return db.any(sql.type(OrganizationRow)`
    ${SELECT}
    WHERE ${options.verifiedOnly ? sql.fragment`o.verified` : sql.fragment`TRUE`} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

export type OrganizationChanges = { name?: string; description?: string | null; logoUrl?: string | null; website?: string | null };

/** Only the fields given change; an explicit null clears an optional field. */
export async function updateOrganization(db: CommonQueryMethods, id: string, changes: OrganizationChanges): Promise<void> {
  const sets = [
    changes.name !== undefined ? sql.fragment`name = ${changes.name}` : undefined,
    changes.description !== undefined ? sql.fragment`description = ${changes.description}` : undefined,
    changes.logoUrl !== undefined ? sql.fragment`logo_url = ${changes.logoUrl}` : undefined,
    changes.website !== undefined ? sql.fragment`website = ${changes.website}` : undefined,
    sql.fragment`updated_at = now()`,
  ].filter((set) => set !== undefined);
  await db.query(sql.typeAlias('void')`UPDATE organizations SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

/** Deletes the organization; its petitions keep going under their creators (ON DELETE SET NULL). */
export async function deleteOrganization(db: CommonQueryMethods, id: string): Promise<void> {
  await db.query(sql.typeAlias('void')`DELETE FROM organizations WHERE id = ${id}`);
}

/** Locks the organization row: member additions and role changes of one organization queue here. */
export function lockOrganization(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(z.object({ id: z.string(), tier: z.string() }))`SELECT id, tier FROM organizations WHERE id = ${id} FOR UPDATE`);
}
