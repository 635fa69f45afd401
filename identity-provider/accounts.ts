// The embedded provider's accounts: e-mail, argon2id password hash, display name. Creating one is
// the `rally users create` command's job; checking a password is the password grant's.
import argon2 from 'argon2';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import { sql } from '../db/sql.ts';

export class IdentityAccountError extends Error {
  override name = 'IdentityAccountError';
}

export type IdentityAccount = { id: string; email: string; emailVerified: boolean; displayName: string | null };

const AccountRow = z.object({ id: z.string(), email: z.string(), email_verified: z.boolean(), display_name: z.string().nullable() });
const CredentialRow = z.object({ id: z.string(), password_hash: z.string() });
const IdRow = z.object({ id: z.string() });

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MIN_PASSWORD_LENGTH = 8;
// argon2 cost grows with input length; a longer "password" is an attack, not a user.
const MAX_PASSWORD_LENGTH = 1024;

// OWASP's argon2id profile (19 MiB, 2 passes): about 20 ms per hash, slow enough against guessing.
const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// Verified when the e-mail is unknown, so a miss costs as much time as a wrong password and the
// response time does not tell which addresses have accounts. Made once, lazily, per process.
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => (dummyHash ??= argon2.hash('rally-no-such-account', HASH_OPTIONS));

/** Makes the dummy hash ahead of the first login, so that login is not the slow one. */
export async function prepareDummyHash(): Promise<void> {
  await getDummyHash();
}

export async function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, HASH_OPTIONS);
}

export async function createIdentityAccount(
  db: CommonQueryMethods,
  input: { email: string; password: string; displayName?: string | null; emailVerified?: boolean },
): Promise<string> {
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
    throw new IdentityAccountError('the e-mail address is not valid');
  }
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
    throw new IdentityAccountError(`the password must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.oneFirst(sql.type(IdRow)`
      INSERT INTO identity_accounts (email, password_hash, display_name, email_verified)
      VALUES (${email}, ${passwordHash}, ${input.displayName?.trim() || null}, ${input.emailVerified ?? false})
      RETURNING id
    `);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'identity_accounts_email_unique') {
      throw new IdentityAccountError('an account with this e-mail address already exists', { cause: error });
    }
    throw error;
  }
}

export async function findIdentityAccount(db: DatabasePool, id: string): Promise<IdentityAccount | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  const row = await db.maybeOne(sql.type(AccountRow)`
    SELECT id, email, email_verified, display_name FROM identity_accounts WHERE id = ${id}
  `);
  return row ? { id: row.id, email: row.email, emailVerified: row.email_verified, displayName: row.display_name } : undefined;
}

/** The account id when the password matches the account with this e-mail; undefined otherwise. */
export async function verifyIdentityPassword(db: DatabasePool, email: string, password: string): Promise<string | undefined> {
  if (password.length > MAX_PASSWORD_LENGTH) return undefined;
  const row = await db.maybeOne(sql.type(CredentialRow)`
    SELECT id, password_hash FROM identity_accounts WHERE lower(email) = lower(${email.trim()})
  `);
  // argon2.verify compares the digests in constant time; the dummy keeps the unknown-email path as slow.
  const matches = await argon2.verify(row?.password_hash ?? (await getDummyHash()), password);
  return row && matches ? row.id : undefined;
}
