// Browser sessions: the login a person keeps on Rally's HTML pages (issue 26); the API (/v1) never reads them (api/http/authenticate.ts). The cookie holds 32
// random bytes and the table only their SHA-256, so reading it gives nobody a session.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

export type SessionLifetimes = { idleTtlMs: number; maxTtlMs: number };

export type BrowserUser = { id: string; displayName: string; emailVerified: boolean; role: 'user' | 'admin' };

export type BrowserSession = { id: string; user: BrowserUser };

const hashOf = (token: string) => createHash('sha256').update(token).digest();

// base64url of 32 bytes: 43 characters from this alphabet, nothing else is looked up.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const SessionRow = z.object({
  id: z.string(),
  user_id: z.string(),
  display_name: z.string(),
  email_verified: z.boolean(),
  role: z.enum(['user', 'admin']),
  suspended: z.boolean(),
  idle: z.boolean(),
});

/** Starts a session for a user who has just logged in; the returned token goes into the cookie, nowhere else. */
export async function startBrowserSession(db: CommonQueryMethods, userId: string, lifetimes: SessionLifetimes): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  // Sessions ended or expired for a day are pruned on the way, a few at a time: the table stays bounded without a job.
  await db.query(sql.typeAlias('void')`
    WITH pruned AS (
      DELETE FROM browser_sessions WHERE id IN (
        SELECT id FROM browser_sessions WHERE expires_at < now() - interval '1 day' OR ended_at < now() - interval '1 day'
        LIMIT 100 FOR UPDATE SKIP LOCKED
      )
    )
    INSERT INTO browser_sessions (token_hash, user_id, expires_at)
    VALUES (${sql.binary(hashOf(token))}, ${userId}, now() + make_interval(secs => ${lifetimes.maxTtlMs / 1000}))
  `);
  return token;
}

/**
 * The live session of a cookie value, its last use moved to now; undefined for an unknown, ended,
 * idle or expired one. A suspended user's session is ended on the spot, so lifting the suspension
 * does not bring it back.
 * A session ends after RALLY_SESSION_IDLE_TTL without a request, RALLY_SESSION_MAX_TTL after its login, at
 * logout, and for every session of a user at "log out everywhere", suspension or a password change
 * (endBrowserSessionsOfUser).
 */
export async function findBrowserSession(db: CommonQueryMethods, token: string, lifetimes: SessionLifetimes): Promise<BrowserSession | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const row = await db.maybeOne(sql.type(SessionRow)`
    SELECT s.id, s.user_id, u.display_name, u.email_verified, u.role, u.suspended_at IS NOT NULL AS suspended,
           s.last_seen_at < now() - make_interval(secs => ${lifetimes.idleTtlMs / 1000}) AS idle
    FROM browser_sessions s JOIN users u ON u.id = s.user_id
    WHERE s.token_hash = ${sql.binary(hashOf(token))} AND s.ended_at IS NULL AND s.expires_at > now()
  `);
  if (!row) return undefined;
  if (row.suspended || row.idle) {
    await db.query(sql.typeAlias('void')`UPDATE browser_sessions SET ended_at = now() WHERE id = ${row.id} AND ended_at IS NULL`);
    return undefined;
  }
  // One write a minute at most per session: a busy page does not rewrite the row on every request.
  await db.query(sql.typeAlias('void')`
    UPDATE browser_sessions SET last_seen_at = now() WHERE id = ${row.id} AND last_seen_at < now() - interval '1 minute'
  `);
  return { id: row.id, user: { id: row.user_id, displayName: row.display_name, emailVerified: row.email_verified, role: row.role } };
}

/** Logout: ends the session of this cookie value (nothing when there is none). */
export async function endBrowserSession(db: CommonQueryMethods, token: string): Promise<void> {
  if (!TOKEN_PATTERN.test(token)) return;
  await db.query(sql.typeAlias('void')`UPDATE browser_sessions SET ended_at = now() WHERE token_hash = ${sql.binary(hashOf(token))} AND ended_at IS NULL`);
}

/** "Log out everywhere", a password change: ends every live session of the user. Returns how many. */
export async function endBrowserSessionsOfUser(db: CommonQueryMethods, userId: string): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`UPDATE browser_sessions SET ended_at = now() WHERE user_id = ${userId} AND ended_at IS NULL`);
  return result.rowCount;
}

/**
 * The session's CSRF token: a keyed hash of its cookie value, so it needs no storage, differs per
 * session and changes with the cookie at every login. `key` is derived from RALLY_ENCRYPTION_KEY.
 */
export function csrfTokenOf(key: Buffer, sessionToken: string): string {
  return createHmac('sha256', key).update(`csrf:${sessionToken}`).digest('base64url');
}

/** Compares a submitted CSRF token with the session's in constant time. */
export function csrfTokenMatches(key: Buffer, sessionToken: string, submitted: unknown): boolean {
  if (typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfTokenOf(key, sessionToken));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
