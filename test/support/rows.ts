// Rows written straight into the database, for tests of core/ queries that need a user to hang their
// own rows on and no login: an identity nobody can sign in with, unique per call.
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from './environment.ts';

/** A user row named after the test that made it (`label`), with a fresh subject, email and slug. */
export function insertUserRow(label: string, role: 'user' | 'admin' = 'user', db: DatabasePool = testEnvironment().db): Promise<string> {
  const subject = randomUUID();
  return db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, role)
    VALUES (${`${label}-test`}, ${subject}, ${`${subject}@example.invalid`}, ${label}, ${`${label}-${subject}`}, ${role})
    RETURNING id`);
}
