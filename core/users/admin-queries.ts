// Users as administrators see them: the profile plus role, suspension and review flag; and the
// admin search by email (prefix or exact, case-insensitive, on users_email_prefix_idx).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, recencyKey } from '../pagination/keyset.ts';

export const AdminUserRow = z.object({
  id: z.string(),
  email: z.string(),
  display_name: z.string(),
  slug: z.string(),
  role: z.enum(['user', 'admin']),
  suspended_at: z.string().nullable(),
  suspended_until: z.string().nullable(),
  suspension_reason: z.string().nullable(),
  flagged_for_review_at: z.string().nullable(),
  email_verified: z.boolean(),
  petition_count: z.number(),
  created_at: z.string(),
  position_at: z.string(),
});
export type AdminUserRow = z.infer<typeof AdminUserRow>;

const ADMIN_USER_SELECT = sql.fragment`
  SELECT id, email, display_name, slug, role, suspended_at, suspended_until, suspension_reason, flagged_for_review_at, email_verified,
    petition_count, created_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position_at
  FROM users`;

export function findAdminUser(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(AdminUserRow)`${ADMIN_USER_SELECT} WHERE id = ${id}`);
}

export function findAdminUserByEmail(db: CommonQueryMethods, email: string) {
  return db.maybeOne(sql.type(AdminUserRow)`${ADMIN_USER_SELECT} WHERE lower(email) = lower(${email}) ORDER BY created_at LIMIT 1`);
}

export type UserSearch = { email?: string; role?: 'user' | 'admin'; suspended?: boolean };

/** LIKE metacharacters in the typed prefix match themselves. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

export function searchUsers(db: CommonQueryMethods, search: UserSearch, after: readonly [string, string] | undefined, limit: number) {
  const keyset = keysetPage(recencyKey(), after, 'desc', limit);
  const conditions = [
    search.email ? sql.fragment`lower(email) LIKE ${`${escapeLike(search.email.toLowerCase())}%`}` : null,
    search.role ? sql.fragment`role = ${search.role}` : null,
    search.suspended === undefined ? null : search.suspended ? sql.fragment`suspended_at IS NOT NULL` : sql.fragment`suspended_at IS NULL`,
    keyset.where,
  ].filter((condition) => condition !== null);
  return db.any(sql.type(AdminUserRow)`
    ${ADMIN_USER_SELECT}
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ${keyset.orderAndLimit}
  `);
}

export function presentAdminUser(row: AdminUserRow) {
  return {
    id: row.id,
    email: row.email,
    display_name: row.display_name,
    slug: row.slug,
    role: row.role,
    suspended: row.suspended_at !== null,
    suspended_at: row.suspended_at,
    suspended_until: row.suspended_until,
    suspension_reason: row.suspension_reason,
    flagged_for_review: row.flagged_for_review_at !== null,
    flagged_for_review_at: row.flagged_for_review_at,
    email_verified: row.email_verified,
    petition_count: row.petition_count,
    created_at: row.created_at,
  };
}
