// The refresh tokens Rally handed out, by SHA-256, so it can answer `token_expired` for an expired one (the provider only says invalid_grant), revoke a user's
// tokens on logout, and detect reuse: every token of one login shares a family; rotating marks the old token, and presenting a marked token again ends the
// whole family, refresh and access tokens alike (RFC 9700 §4.14).
import { createHash } from 'node:crypto';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

const hash = (token: string) => createHash('sha256').update(token).digest();

const RefreshTokenState = z.object({
  user_id: z.string().uuid(),
  family_id: z.string().uuid(),
  expired: z.boolean(),
  revoked: z.boolean(),
  rotated: z.boolean(),
});
export type RefreshTokenState = z.infer<typeof RefreshTokenState>;

const FamilyAccessToken = z.object({ jti: z.string(), expires_at: z.string() });

/** Records a token; a new login passes no family and starts one. Returns the family id. */
export async function recordRefreshToken(db: CommonQueryMethods, token: string, userId: string, ttlMs: number, familyId?: string): Promise<string> {
  return db.oneFirst(sql.type(z.object({ family_id: z.string().uuid() }))`
    INSERT INTO refresh_tokens (token_hash, user_id, expires_at, family_id)
    VALUES (${sql.binary(hash(token))}, ${userId}, now() + make_interval(secs => ${ttlMs / 1000}),
            COALESCE(${familyId ?? null}::uuid, gen_random_uuid()))
    ON CONFLICT (token_hash) DO UPDATE SET token_hash = EXCLUDED.token_hash
    RETURNING family_id
  `);
}

/** Remembers an access token handed out with a family, so reuse of the family can revoke it. */
export function recordFamilyAccessToken(db: CommonQueryMethods, familyId: string, jti: string, expiresAt: Date) {
  return db.query(sql.typeAlias('void')`
    INSERT INTO refresh_token_family_access_tokens (family_id, jti, expires_at)
    VALUES (${familyId}, ${jti}, ${expiresAt.toISOString()})
    ON CONFLICT DO NOTHING
  `);
}

export function findRefreshToken(db: CommonQueryMethods, token: string) {
  return db.maybeOne(sql.type(RefreshTokenState)`
    SELECT user_id, family_id, expires_at <= now() AS expired, revoked_at IS NOT NULL AS revoked, rotated_at IS NOT NULL AS rotated
    FROM refresh_tokens WHERE token_hash = ${sql.binary(hash(token))}
  `);
}

/**
 * Claims a live token for rotation: one statement, so of two concurrent refreshes with one token
 * only one wins (the other is reuse). Returns false when the token was no longer live.
 */
export async function claimForRotation(db: CommonQueryMethods, token: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    UPDATE refresh_tokens SET rotated_at = now()
    WHERE token_hash = ${sql.binary(hash(token))} AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > now()
  `);
  return result.rowCount > 0;
}

/** Gives a claimed token back when the provider could not be asked (it is still valid there). */
export function releaseRotationClaim(db: CommonQueryMethods, token: string) {
  return db.query(sql.typeAlias('void')`UPDATE refresh_tokens SET rotated_at = NULL WHERE token_hash = ${sql.binary(hash(token))}`);
}

/** Revokes every refresh token of a family; answers the family's access tokens still alive. */
export async function revokeFamily(db: CommonQueryMethods, familyId: string) {
  await db.query(sql.typeAlias('void')`
    UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE family_id = ${familyId}
  `);
  const accessTokens = await db.any(sql.type(FamilyAccessToken)`
    SELECT jti, expires_at FROM refresh_token_family_access_tokens WHERE family_id = ${familyId} AND expires_at > now()
  `);
  return accessTokens.map((row) => ({ jti: row.jti, expiresAt: new Date(row.expires_at) }));
}

/** Marks a refresh token revoked; with userId, only when it belongs to that user. Returns whether it did. */
export async function revokeRefreshToken(db: CommonQueryMethods, token: string, userId?: string): Promise<boolean> {
  const result = await db.query(sql.typeAlias('void')`
    UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, now())
    WHERE token_hash = ${sql.binary(hash(token))} ${userId ? sql.fragment`AND user_id = ${userId}` : sql.fragment``}
  `);
  return result.rowCount > 0;
}
