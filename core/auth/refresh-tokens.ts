// The refresh tokens Rally handed out, by SHA-256, so it can answer `token_expired` for an expired
// one (the provider only says invalid_grant) and revoke a user's tokens on logout.
import { createHash } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const hash = (token: string) => createHash('sha256').update(token).digest();

const RefreshTokenState = z.object({ user_id: z.string().uuid(), expired: z.boolean(), revoked: z.boolean() });

export function recordRefreshToken(db: CommonQueryMethods, token: string, userId: string, ttlMs: number) {
  return db.query(sql.typeAlias('void')`
    INSERT INTO refresh_tokens (token_hash, user_id, expires_at)
    VALUES (${sql.binary(hash(token))}, ${userId}, now() + make_interval(secs => ${ttlMs / 1000}))
    ON CONFLICT (token_hash) DO NOTHING
  `);
}

export function findRefreshToken(db: CommonQueryMethods, token: string) {
  return db.maybeOne(sql.type(RefreshTokenState)`
    SELECT user_id, expires_at <= now() AS expired, revoked_at IS NOT NULL AS revoked
    FROM refresh_tokens WHERE token_hash = ${sql.binary(hash(token))}
  `);
}

/** Marks a refresh token revoked; with userId, only when it belongs to that user. Returns whether it did. */
export async function revokeRefreshToken(db: CommonQueryMethods, token: string, userId?: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, now())
    WHERE token_hash = ${sql.binary(hash(token))} ${userId ? sql.fragment`AND user_id = ${userId}` : sql.fragment``}
  `);
  return result.rowCount > 0;
}
