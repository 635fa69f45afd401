// A login on its way through the identity provider (OpenID Connect authorization code with PKCE):
// what the callback needs to finish it (state, nonce, code verifier, where to go back), found by
// the hash of a random value in a short-lived cookie of the same browser. A callback URL carried to
// another browser therefore logs nobody in (login CSRF), and each attempt is used once.
import { createHash, randomBytes } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

/** How long a person has to finish logging in (typing a password, or signing up). */
export const LOGIN_ATTEMPT_TTL_MS = 30 * 60_000;

export type LoginAttempt = { state: string; nonce: string; codeVerifier: string; returnTo: string };

const AttemptRow = z.object({ state: z.string(), nonce: z.string(), code_verifier: z.string(), return_to: z.string(), live: z.boolean() });

const hashOf = (binding: string) => createHash('sha256').update(binding).digest();

/** Stores an attempt; the returned binding goes into the browser's login cookie. Old attempts are pruned on the way. */
export async function recordLoginAttempt(db: CommonQueryMethods, attempt: LoginAttempt): Promise<string> {
  const binding = randomBytes(32).toString('base64url');
  await db.query(sql.typeAlias('void')`
    WITH pruned AS (
      DELETE FROM browser_login_attempts WHERE binding_hash IN (
        SELECT binding_hash FROM browser_login_attempts WHERE expires_at < now() LIMIT 100 FOR UPDATE SKIP LOCKED
      )
    )
    INSERT INTO browser_login_attempts (binding_hash, state, nonce, code_verifier, return_to, expires_at)
    VALUES (${sql.binary(hashOf(binding))}, ${attempt.state}, ${attempt.nonce}, ${attempt.codeVerifier}, ${attempt.returnTo},
            now() + make_interval(secs => ${LOGIN_ATTEMPT_TTL_MS / 1000}))
  `);
  return binding;
}

/** Takes the attempt of a login cookie (deleting it: one use), or undefined when there is none or it expired. */
export async function takeLoginAttempt(db: CommonQueryMethods, binding: string): Promise<LoginAttempt | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(binding)) return undefined;
  const row = await db.maybeOne(sql.type(AttemptRow)`
    DELETE FROM browser_login_attempts WHERE binding_hash = ${sql.binary(hashOf(binding))}
    RETURNING state, nonce, code_verifier, return_to, expires_at > now() AS live
  `);
  return row?.live ? { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier, returnTo: row.return_to } : undefined;
}
