// SQL for users. Every column list is explicit; rows are checked against their schemas.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { prepared, sql } from '../../db/sql.ts';
import { slugify, withFreeSlug } from '../slugs.ts';
import { adoptGuestUser } from './guests.ts';

export const UserRow = z.object({
  id: z.string().uuid(),
  email: z.string(),
  display_name: z.string(),
  slug: z.string(),
  bio: z.string().nullable(),
  avatar_url: z.string().nullable(),
  role: z.enum(['user', 'admin']),
  suspended_at: z.string().nullable(),
  email_verified: z.boolean(),
  phone_verified: z.boolean(),
  notification_prefs: z.record(z.string(), z.unknown()),
  petition_count: z.number(),
  created_at: z.string(),
});
export type UserRow = z.infer<typeof UserRow>;

const USER_COLUMNS = sql.fragment`id, email, display_name, slug, bio, avatar_url, role, suspended_at, email_verified,
  phone_verified, notification_prefs, petition_count, created_at`;

export type IdentityClaims = { issuer: string; subject: string; email: string; displayName: string; emailVerified: boolean };

/** Finds the user linked to a provider account, creating it from the claims on first sight. */
export async function upsertUserFromClaims(db: CommonQueryMethods, claims: IdentityClaims, role: 'user' | 'admin' = 'user'): Promise<UserRow> {
  // Someone who signed as a guest and now has an account: the guest user becomes theirs (core/users/guests.ts).
  if (claims.emailVerified) await adoptGuestUser(db, claims.email, { issuer: claims.issuer, subject: claims.subject });
  const slug = slugify(claims.displayName || claims.email.split('@')[0] || 'user');
  // Each attempt in its own (sub)transaction: called inside a transaction, this is a savepoint, so a
  // slug clash rolls back only the attempt and the retry does not meet an aborted transaction.
  return withFreeSlug(slug, 'users_slug_unique', (candidate) =>
    db.transaction((attemptTx) =>
      attemptTx.one(sql.type(UserRow)`
        INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, email_verified, role)
        VALUES (${claims.issuer}, ${claims.subject}, ${claims.email}, ${claims.displayName}, ${candidate}, ${claims.emailVerified}, ${role})
        ON CONFLICT ON CONSTRAINT users_identity_unique DO UPDATE
          SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified, updated_at = now()
        RETURNING ${USER_COLUMNS}
      `),
    ),
  );
}

export function findUserById(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(UserRow)`SELECT ${USER_COLUMNS} FROM users WHERE id = ${id}`);
}

export function findUserBySlug(db: CommonQueryMethods, slug: string) {
  return db.maybeOne(sql.type(UserRow)`SELECT ${USER_COLUMNS} FROM users WHERE slug = ${slug} AND suspended_at IS NULL`);
}

/** Who a token's subject is, with the domain of their email as signatures normalise it (rally_email_key), which the signing throttle counts. */
export const UserIdentity = z.object({ id: z.string().uuid(), role: z.enum(['user', 'admin']), suspended: z.boolean(), email_domain: z.string().nullable() });
const IDENTITY_COLUMNS = sql.fragment`id, role, suspended_at IS NOT NULL AS suspended, NULLIF(split_part(email_key, '@', 2), '') AS email_domain`;

/** One user by identity, named (prepared); the directory looks many up at once (findUsersByIdentities). */
export function findUserByIdentity(db: CommonQueryMethods, issuer: string, subject: string) {
  return db.maybeOne(
    prepared(
      'rally_user_by_identity',
      sql.type(UserIdentity)`
        SELECT ${IDENTITY_COLUMNS} FROM users
        WHERE identity_issuer = ${issuer} AND identity_subject = ${subject}
      `,
    ),
  );
}

const IdentifiedUser = UserIdentity.extend({ identity_issuer: z.string(), identity_subject: z.string() });

/** The users of many (issuer, subject) pairs in one statement: the directory's misses of one moment, together. */
export function findUsersByIdentities(db: CommonQueryMethods, identities: readonly { issuer: string; subject: string }[]) {
  return db.any(
    prepared(
      'rally_users_by_identities',
      sql.type(IdentifiedUser)`
        SELECT identity_issuer, identity_subject, ${IDENTITY_COLUMNS} FROM users
        WHERE (identity_issuer, identity_subject) IN (SELECT * FROM unnest(${sql.array(
          identities.map((identity) => identity.issuer),
          'text',
        )}, ${sql.array(
          identities.map((identity) => identity.subject),
          'text',
        )}))
      `,
    ),
  );
}

export function findUserStateById(db: CommonQueryMethods, id: string) {
  return db.maybeOne(sql.type(UserIdentity)`SELECT ${IDENTITY_COLUMNS} FROM users WHERE id = ${id}`);
}

export type UserChanges = { display_name?: string; bio?: string | null; avatar_url?: string | null; notification_prefs?: Record<string, unknown> };

export function updateUser(db: CommonQueryMethods, id: string, changes: UserChanges) {
  return db.one(sql.type(UserRow)`
    UPDATE users SET
      display_name = COALESCE(${changes.display_name ?? null}, display_name),
      bio = CASE WHEN ${changes.bio !== undefined} THEN ${changes.bio ?? null} ELSE bio END,
      avatar_url = CASE WHEN ${changes.avatar_url !== undefined} THEN ${changes.avatar_url ?? null} ELSE avatar_url END,
      notification_prefs = notification_prefs || ${sql.jsonb((changes.notification_prefs ?? {}) as never)},
      updated_at = now()
    WHERE id = ${id}
    RETURNING ${USER_COLUMNS}
  `);
}
