// The rows of GET /v1/petitions/export: a page of petitions, or a page of signatures joined with their petitions, oldest first (an export resumed later
// continues where it stopped). The caller gets what they may list (core/petitions/policy.ts: listedTo); signatures of petitions whose signature privacy is not
// public only on petitions they manage, and signers' emails only there.
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';
import type { PetitionStatus } from '../vocabulary.ts';
import { listedTo, managedBy, type Viewer } from './policy.ts';

export type ExportFilter = { status?: PetitionStatus; categoryId?: string; creatorId?: string };
type Page = { after: readonly [string, string] | undefined; limit: number };

export const PETITION_EXPORT_COLUMNS = [
  'id',
  'slug',
  'title',
  'status',
  'visibility',
  'category',
  'creator_id',
  'creator_name',
  'signature_count',
  'signature_goal',
  'tags',
  'created_at',
  'published_at',
  'closed_at',
] as const;
const PetitionExportRow = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  status: z.string(),
  visibility: z.string(),
  category: z.string().nullable(),
  creator_id: z.string(),
  creator_name: z.string(),
  signature_count: z.number(),
  signature_goal: z.number().nullable(),
  tags: z.array(z.string()),
  created_at: z.string(),
  published_at: z.string().nullable(),
  closed_at: z.string().nullable(),
});

export const SIGNATURE_EXPORT_COLUMNS = [
  'signature_id',
  'petition_id',
  'petition_slug',
  'petition_title',
  'signer_name',
  'signer_slug',
  'signer_email',
  'comment',
  'is_anonymous',
  'display_location',
  'city',
  'country',
  'signed_at',
] as const;
/** The columns of a signature that every export of signatures shows, beside who signed and when. */
export const SIGNATURE_EXPORT_FIELDS = {
  comment: z.string().nullable(),
  is_anonymous: z.boolean(),
  display_location: z.string().nullable(),
  city: z.string().nullable(),
  country: z.string().nullable(),
};

const SignatureExportRow = z.object({
  signature_id: z.string(),
  petition_id: z.string(),
  petition_slug: z.string(),
  petition_title: z.string(),
  signer_name: z.string().nullable(),
  signer_slug: z.string().nullable(),
  signer_email: z.string().nullable(),
  ...SIGNATURE_EXPORT_FIELDS,
  signed_at: z.string(),
});

function petitionConditions(viewer: Viewer, filter: ExportFilter): FragmentSqlToken[] {
  const conditions = [listedTo(viewer)];
  if (filter.status) conditions.push(sql.fragment`p.status = ${filter.status}`);
  if (filter.categoryId) conditions.push(sql.fragment`p.category_id = ${filter.categoryId}`);
  if (filter.creatorId) conditions.push(sql.fragment`p.creator_id = ${filter.creatorId}`);
  return conditions;
}

/** limit + 1 rows, for paginate. */
export function exportPetitionPage(db: CommonQueryMethods, viewer: Viewer, filter: ExportFilter, page: Page) {
  const keyset = keysetPage(recencyKey('p'), page.after, 'asc', page.limit);
  return db.any(sql.type(PetitionExportRow)`
    SELECT p.id, p.slug, p.title, p.status, p.visibility, c.slug AS category, p.creator_id, u.display_name AS creator_name,
      COALESCE((SELECT sum(sc.count) FROM signature_counters sc WHERE sc.petition_id = p.id), 0)::bigint AS signature_count,
      p.signature_goal, p.tags, p.created_at, p.published_at, p.closed_at
    FROM petitions p JOIN users u ON u.id = p.creator_id LEFT JOIN categories c ON c.id = p.category_id
    WHERE ${sql.join(petitionConditions(viewer, filter), sql.fragment` AND `)} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

/** limit + 1 rows, for paginate. */
export function exportSignaturePage(db: CommonQueryMethods, viewer: Viewer, filter: ExportFilter, page: Page) {
  const conditions = petitionConditions(viewer, filter);
  conditions.push(sql.fragment`(p.signature_privacy = 'public' OR ${managedBy(viewer)})`);
  const keyset = keysetPage(recencyKey('s'), page.after, 'asc', page.limit);
  const named = (value: FragmentSqlToken) => sql.fragment`CASE WHEN s.is_anonymous THEN NULL ELSE ${value} END`;
  return db.any(sql.type(SignatureExportRow)`
    SELECT s.id AS signature_id, p.id AS petition_id, p.slug AS petition_slug, p.title AS petition_title,
      ${named(sql.fragment`u.display_name`)} AS signer_name, ${named(sql.fragment`u.slug`)} AS signer_slug,
      CASE WHEN ${managedBy(viewer)} THEN ${named(sql.fragment`u.email`)} END AS signer_email,
      s.comment, s.is_anonymous, s.display_location,
      -- Located from the signer's address: only those who manage the petition see it, signer by signer.
      CASE WHEN ${managedBy(viewer)} THEN s.city END AS city, CASE WHEN ${managedBy(viewer)} THEN s.country END AS country,
      s.created_at AS signed_at
    FROM signatures s JOIN petitions p ON p.id = s.petition_id LEFT JOIN users u ON u.id = s.user_id
    WHERE ${sql.join(conditions, sql.fragment` AND `)} AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}
