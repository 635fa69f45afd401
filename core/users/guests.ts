// The user behind a confirmed guest signature. One person signs a petition once whichever way they
// come (API, account, guest), because every signature is a user's and the unique index of signatures
// is per user: so a guest who confirms is the user that already has their address when there is one,
// and otherwise a new user without a password, identified by the address (issuer GUEST_IDENTITY_ISSUER,
// subject the normalised address) and with the address verified by the click.
//
// Such a user has no account at the identity provider: they get one when they set a password (the
// sign-up page of the browser sessions, /signup?email=…); their first login adopts this user (adoptGuestUser).
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { slugify, withFreeSlug, withRandomSuffix } from '../slugs.ts';
import { GUEST_IDENTITY_ISSUER } from '../vocabulary.ts';

const Signer = z.object({ id: z.string(), suspended: z.boolean() });
export type GuestSigner = z.infer<typeof Signer>;

/**
 * The user whose address this is (an account's before a guest's; the oldest of equals), or a new
 * passwordless one. Concurrent confirmations of one new address meet at users_identity_unique.
 */
export async function findOrCreateGuestUser(db: DatabasePool, email: string, displayName: string): Promise<GuestSigner> {
  // A guest's slug always carries a random suffix: guests choose no slug, and many share a name.
  const slug = withRandomSuffix(slugify(displayName || email.split('@')[0] || 'signer'));
  // One statement, which commits or fails on its own: called outside a transaction (a clash aborts it).
  return withFreeSlug(slug, 'users_slug_unique', (candidate) =>
    db.one(sql.type(Signer)`
      WITH found AS (
        SELECT id, suspended_at IS NOT NULL AS suspended FROM users
        WHERE lower(email) = lower(${email})
        ORDER BY identity_issuer = ${GUEST_IDENTITY_ISSUER}, created_at
        LIMIT 1
      ), created AS (
        INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, email_verified)
        SELECT ${GUEST_IDENTITY_ISSUER}, rally_email_key(${email}), ${email}, ${displayName}, ${candidate}, true
        WHERE NOT EXISTS (SELECT 1 FROM found)
        ON CONFLICT ON CONSTRAINT users_identity_unique DO UPDATE SET updated_at = now()
        RETURNING id, suspended_at IS NOT NULL AS suspended
      )
      SELECT id, suspended FROM found UNION ALL SELECT id, suspended FROM created
    `),
  );
}

/**
 * For the first login of a person who signed as a guest (upsertUserFromClaims, with the address
 * verified by the provider): the guest user of this address takes the provider account, so their
 * signatures stay theirs. Answers the adopted user's id, or null when there is nothing to adopt.
 */
export async function adoptGuestUser(db: CommonQueryMethods, email: string, identity: { issuer: string; subject: string }): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE users SET identity_issuer = ${identity.issuer}, identity_subject = ${identity.subject}, updated_at = now()
    WHERE identity_issuer = ${GUEST_IDENTITY_ISSUER} AND identity_subject = rally_email_key(${email})
      AND NOT EXISTS (SELECT 1 FROM users WHERE identity_issuer = ${identity.issuer} AND identity_subject = ${identity.subject})
    RETURNING id
  `);
}
