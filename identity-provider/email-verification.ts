// Confirming the address of a new account: a link with 32 random bytes (stored as their SHA-256) that marks the account's email verified. The ID token then
// says email_verified: true at the next login, and only a verified person can sign. A new link is made at most once a minute per account, so the sign-up form
// cannot be used to flood someone's mailbox.
import { createHash, randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';
import type { Mailer } from '../platform/mailer.ts';

const LINK_TTL_SECONDS = 2 * 86_400;
const hashOf = (token: string) => createHash('sha256').update(token).digest();

/** Makes a link for the account and mails it; false when one was made in the last minute (nothing sent). */
export async function sendVerificationEmail(
  deps: { db: DatabasePool; mailer: Mailer; issuer: string },
  account: { id: string; email: string; displayName: string },
): Promise<boolean> {
  const token = randomBytes(32).toString('base64url');
  const made = await deps.db.maybeOneFirst(sql.type(z.object({ made: z.boolean() }))`
    INSERT INTO identity_email_verifications (token_hash, account_id, expires_at)
    SELECT ${sql.binary(hashOf(token))}, ${account.id}, now() + make_interval(secs => ${LINK_TTL_SECONDS})
    WHERE NOT EXISTS (
      SELECT FROM identity_email_verifications WHERE account_id = ${account.id} AND created_at > now() - interval '1 minute'
    )
    RETURNING true AS made
  `);
  if (!made) return false;
  const link = `${deps.issuer}/verify-email?token=${token}`;
  await deps.mailer.send({
    to: account.email,
    subject: 'Confirm your email address for Rally',
    text:
      `Hello ${account.displayName},\n\nplease confirm that this is your email address by opening this link:\n\n${link}\n\n` +
      'Once it is confirmed you can sign petitions on Rally. The link works for two days.\n' +
      'If you did not create a Rally account, ignore this message: nothing happens without the link.\n',
  });
  return true;
}

/** Marks the account of a live link verified and uses the link up; false for an unknown, used or expired one. */
export async function verifyEmail(db: DatabasePool, token: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
  const verified = await db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    WITH used AS (
      DELETE FROM identity_email_verifications WHERE token_hash = ${sql.binary(hashOf(token))} AND expires_at > now()
      RETURNING account_id
    )
    UPDATE identity_accounts SET email_verified = true FROM used WHERE identity_accounts.id = used.account_id
    RETURNING identity_accounts.id
  `);
  return verified !== null;
}
