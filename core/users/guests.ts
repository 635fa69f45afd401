// The user behind a confirmed guest signature. A person signs a petition once whichever way they come, since the signatures' unique index is per user: a guest
// who confirms is the user that owns their address (verified: an account that merely claims it owns nothing), otherwise a new user without a password,
// identified by the address (issuer GUEST_IDENTITY_ISSUER) and with the address verified by the click.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { z } from 'zod';
import { prepared, sql, unnestRows } from '../../db/sql.ts';
import { slugify, withFreeSlug, withRandomSuffix } from '../slugs.ts';
import { GUEST_IDENTITY_ISSUER } from '../vocabulary.ts';

const Signer = z.object({ ordinal: z.number(), id: z.string(), suspended: z.boolean() });
export type GuestSigner = { id: string; suspended: boolean };
export type GuestPerson = { email: string; displayName: string };

/**
 * The verified user of each address (an account's before a guest's; the oldest of equals), or a new
 * passwordless one, in the order given, in one statement for a whole batch of confirmations. Two
 * addresses of one person (the same rally_email_key) get one user. Concurrent statements creating one
 * new address meet at users_identity_unique.
 */
export async function findOrCreateGuestUsers(db: DatabasePool, people: readonly GuestPerson[]): Promise<GuestSigner[]> {
  if (people.length === 0) return [];
  // One statement, which commits or fails on its own: called outside a transaction (a clash aborts it).
  // A guest's slug always carries a random suffix (guests choose none, and many share a name); each
  // attempt draws every row's anew, so one clash costs one retry of the batch, not a failure. Ten hex
  // digits, not six: of six, a name 100,000 guests share clashed in a quarter of batches of 50 (the bench's
  // guest rows met 37 clashes in 33,000 confirmations of one name), and six retries in a row refuse a batch.
  const SUFFIX_DIGITS = 10;
  const rows = await withFreeSlug('', 'users_slug_unique', () =>
    db.any(
      prepared(
        'rally_guest_signers',
        sql.type(Signer)`
      WITH input AS (
        SELECT * FROM ${unnestRows(
          people,
          'i',
          {
            email: ['text', (person) => person.email],
            display_name: ['text', (person) => person.displayName],
            slug: ['text', (person) => withRandomSuffix(slugify(person.displayName || person.email.split('@')[0] || 'signer'), SUFFIX_DIGITS)],
          },
          'ordinal',
        )}
      ), found AS (
        -- Each address by the index on lower(email): a join would tempt the planner into reading every user.
        SELECT i.ordinal, u.id, u.suspended
        FROM input i CROSS JOIN LATERAL (
          SELECT id, suspended_at IS NOT NULL AS suspended FROM users
          WHERE lower(email) = lower(i.email) AND email_verified
          ORDER BY identity_issuer = ${GUEST_IDENTITY_ISSUER}, created_at
          LIMIT 1
        ) u
      ), created AS (
        INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, email_verified)
        SELECT DISTINCT ON (rally_email_key(i.email)) ${GUEST_IDENTITY_ISSUER}, rally_email_key(i.email), i.email, i.display_name, i.slug, true
        FROM input i WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.ordinal = i.ordinal)
        -- One order for every batch, so that two batches creating the same addresses wait instead of deadlocking.
        ORDER BY rally_email_key(i.email), i.ordinal
        ON CONFLICT ON CONSTRAINT users_identity_unique DO UPDATE SET updated_at = now()
        RETURNING id, identity_subject, suspended_at IS NOT NULL AS suspended
      )
      SELECT i.ordinal::int AS ordinal, COALESCE(f.id, c.id) AS id, COALESCE(f.suspended, c.suspended) AS suspended
      FROM input i LEFT JOIN found f ON f.ordinal = i.ordinal
        LEFT JOIN created c ON f.id IS NULL AND c.identity_subject = rally_email_key(i.email)
      ORDER BY i.ordinal
    `,
      ),
    ),
  );
  return rows.map(({ id, suspended }) => ({ id, suspended }));
}

/**
 * For the first login of a person who signed as a guest (upsertUserFromClaims, with the address
 * verified by the provider): the guest user of this address takes the provider account, so their
 * signatures stay theirs. Only for the very address (case-folded) the guest user was made for: the
 * normalised key that finds it drops +tags on every domain, where alice+x and alice may be two people.
 * Answers the adopted user's id, or null when there is nothing to adopt.
 * Such a user has no account at the identity provider until they set a password (the sign-up page of the
 * browser sessions, /signup?email=…); their first login adopts this user.
 */
export async function adoptGuestUser(db: CommonQueryMethods, email: string, identity: { issuer: string; subject: string }): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    UPDATE users SET identity_issuer = ${identity.issuer}, identity_subject = ${identity.subject}, updated_at = now()
    WHERE identity_issuer = ${GUEST_IDENTITY_ISSUER} AND identity_subject = rally_email_key(${email}) AND lower(email) = lower(${email})
      AND NOT EXISTS (SELECT 1 FROM users WHERE identity_issuer = ${identity.issuer} AND identity_subject = ${identity.subject})
    RETURNING id
  `);
}
