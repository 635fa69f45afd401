// SQL for petitions. The displayed signature count is the live sum of the petition's counter
// shards; petitions.signature_count is the rolled-up copy used only to sort by popularity.
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql, unnestRows } from '../../db/sql.ts';
import { visibleTo, type Viewer } from './policy.ts';
import { PUBLIC_USER_JSON, PublicUserRow } from '../public-user.ts';
import { PETITION_STATUSES, PETITION_VISIBILITIES, type PetitionVisibility, type SignaturePrivacy } from '../vocabulary.ts';

export const PetitionRow = z.object({
  id: z.string().uuid(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.enum(PETITION_STATUSES),
  creator_id: z.string().uuid(),
  org_id: z.string().uuid().nullable(),
  category: z.object({ id: z.string(), slug: z.string(), name: z.string() }).nullable(),
  creator: PublicUserRow,
  tags: z.array(z.string()),
  image_url: z.string().nullable(),
  signature_goal: z.number().nullable(),
  visibility: z.enum(PETITION_VISIBILITIES),
  access_code: z.string().nullable(),
  location_city: z.string().nullable(),
  location_region: z.string().nullable(),
  location_country: z.string().nullable(),
  signature_privacy: z.enum(['public', 'creator_only', 'count_only']),
  victory_message: z.string().nullable(),
  live_signature_count: z.number(),
  ranked_signature_count: z.number(),
  trending_score: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  published_at: z.string().nullable(),
  closed_at: z.string().nullable(),
  signer_data_deleted_at: z.string().nullable(),
});
export type PetitionRow = z.infer<typeof PetitionRow>;

/** Everything a petition answer shows, for any query `FROM petitions p`. */
export const PETITION_SELECT = sql.fragment`
  SELECT p.id, p.slug, p.title, p.description, p.status, p.creator_id, p.org_id,
    CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'slug', c.slug, 'name', c.name) END AS category,
    ${PUBLIC_USER_JSON} AS creator,
    p.tags, p.image_url, p.signature_goal, p.visibility, p.access_code, p.location_city, p.location_region, p.location_country,
    p.signature_privacy, p.victory_message,
    COALESCE((SELECT sum(sc.count) FROM signature_counters sc WHERE sc.petition_id = p.id), 0)::bigint AS live_signature_count,
    p.signature_count AS ranked_signature_count, p.trending_score, p.created_at, p.updated_at, p.published_at, p.closed_at,
    p.signer_data_deleted_at
  FROM petitions p
  JOIN users u ON u.id = p.creator_id
  LEFT JOIN categories c ON c.id = p.category_id`;

export function findPetitionById(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(PetitionRow)`${PETITION_SELECT} WHERE p.id = ${id} AND p.deleted_at IS NULL`);
}

export function findPetitionBySlug(db: CommonQueryMethods, slug: string) {
  return db.maybeOne(sql.type(PetitionRow)`${PETITION_SELECT} WHERE p.slug = ${slug} AND p.deleted_at IS NULL`);
}

export type NewPetition = {
  slug: string;
  title: string;
  description: string;
  creatorId: string;
  orgId: string | null;
  categoryId: string | null;
  tags: string[];
  imageUrl: string | null;
  signatureGoal: number | null;
  visibility: string;
  accessCode: string | null;
  locationCity: string | null;
  locationRegion: string | null;
  locationCountry: string | null;
  signaturePrivacy: string;
};

export async function insertPetition(tx: CommonQueryMethods, petition: NewPetition): Promise<string> {
  const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO petitions (slug, title, description, creator_id, org_id, category_id, tags, image_url, signature_goal, visibility,
      access_code, location_city, location_region, location_country, signature_privacy)
    VALUES (${petition.slug}, ${petition.title}, ${petition.description}, ${petition.creatorId}, ${petition.orgId}, ${petition.categoryId},
      ${sql.array(petition.tags, 'text')}, ${petition.imageUrl}, ${petition.signatureGoal}, ${petition.visibility}, ${petition.accessCode},
      ${petition.locationCity}, ${petition.locationRegion}, ${petition.locationCountry}, ${petition.signaturePrivacy})
    RETURNING id
  `);
  await tx.query(sql.typeAlias('void')`UPDATE users SET petition_count = petition_count + 1 WHERE id = ${petition.creatorId}`);
  return id;
}

export function insertDecisionMakers(tx: CommonQueryMethods, petitionId: string, people: { name: string; title: string; email: string }[]) {
  if (people.length === 0) return Promise.resolve();
  return tx.query(sql.typeAlias('void')`
    INSERT INTO petition_decision_makers (petition_id, name, title, email)
    SELECT ${petitionId}, name, title, email
    FROM ${unnestRows(people, 't', {
      name: ['text', (person) => person.name],
      title: ['text', (person) => person.title],
      email: ['text', (person) => person.email],
    })}
  `);
}

/** What a manager may change (validated by the API's PetitionUpdate schema). */
export type PetitionEdit = {
  title?: string;
  description?: string;
  categoryId?: string;
  tags?: string[];
  imageUrl?: string;
  signatureGoal?: number;
  visibility?: PetitionVisibility;
  signaturePrivacy?: SignaturePrivacy;
};

/** An edit as written: with the slug and the access code it brings about. */
export type PetitionChanges = PetitionEdit & { slug?: string; accessCode?: string | null };

export function writePetitionChanges(tx: CommonQueryMethods, id: string, changes: PetitionChanges) {
  const assignments: FragmentSqlToken[] = [sql.fragment`updated_at = now()`];
  const set = (column: string, value: FragmentSqlToken | string | number | null) => assignments.push(sql.fragment`${sql.identifier([column])} = ${value}`);
  if (changes.slug !== undefined) set('slug', changes.slug);
  if (changes.title !== undefined) set('title', changes.title);
  if (changes.description !== undefined) set('description', changes.description);
  if (changes.categoryId !== undefined) set('category_id', changes.categoryId);
  if (changes.tags !== undefined) set('tags', sql.fragment`${sql.array(changes.tags, 'text')}`);
  if (changes.imageUrl !== undefined) set('image_url', changes.imageUrl);
  if (changes.signatureGoal !== undefined) set('signature_goal', changes.signatureGoal);
  if (changes.visibility !== undefined) set('visibility', changes.visibility);
  if (changes.accessCode !== undefined) set('access_code', changes.accessCode);
  if (changes.signaturePrivacy !== undefined) set('signature_privacy', changes.signaturePrivacy);
  return tx.query(sql.typeAlias('void')`UPDATE petitions SET ${sql.join(assignments, sql.fragment`, `)} WHERE id = ${id} AND deleted_at IS NULL`);
}

export async function softDeletePetition(tx: CommonQueryMethods, id: string, creatorId: string): Promise<boolean> {
  const deleted = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
    UPDATE petitions SET deleted_at = now() WHERE id = ${id} AND deleted_at IS NULL RETURNING id
  `);
  if (deleted) await tx.query(sql.typeAlias('void')`UPDATE users SET petition_count = petition_count - 1 WHERE id = ${creatorId}`);
  return deleted !== null;
}

export const CategoryRow = z.object({ id: z.string(), slug: z.string(), name: z.string() });
export function listCategories(db: CommonQueryMethods) {
  return db.any(sql.type(CategoryRow)`SELECT id, slug, name FROM categories ORDER BY name`);
}

/** Whether `viewer` may read petition `id` (core/petitions/policy.ts), in one indexed lookup. */
export async function isVisibleTo(db: CommonQueryMethods, viewer: Viewer, id: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`SELECT p.id FROM petitions p WHERE p.id = ${id} AND ${visibleTo(viewer)}`);
  return row !== null;
}

const PetitionAccessRow = z.object({
  id: z.string().uuid(),
  creator_id: z.string().uuid(),
  org_id: z.string().uuid().nullable(),
  status: z.enum(PETITION_STATUSES),
  visibility: z.enum(PETITION_VISIBILITIES),
  access_code: z.string().nullable(),
});

/** Just what the petition policy decides on, for a live petition; null when there is none. FOR SHARE with lock. */
export function findPetitionAccess(db: CommonQueryMethods, id: string, options: { lock?: boolean } = {}) {
  return db.maybeOne(sql.type(PetitionAccessRow)`
    SELECT p.id, p.creator_id, p.org_id, p.status, p.visibility, p.access_code FROM petitions p WHERE p.id = ${id} AND p.deleted_at IS NULL
    ${options.lock ? sql.fragment`FOR SHARE` : sql.fragment``}
  `);
}

/** The displayed signature count: the live sum of the petition's counter shards. */
export function liveSignatureCount(db: CommonQueryMethods, petitionId: string) {
  return db.oneFirst(sql.type(z.object({ total: z.number() }))`
    SELECT COALESCE(sum(count), 0)::bigint AS total FROM signature_counters WHERE petition_id = ${petitionId}
  `);
}
