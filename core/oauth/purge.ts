// Forgetting OAuth artifacts whose time is over, in bounded batches (the purgeOAuthArtifacts
// workflow calls this hourly). Expired codes are kept a day past expiry so a late replay is still
// recognised; a family goes once nothing refers to it any more.
import type { CommonQueryMethods } from 'slonik';
import { sql } from '../../db/sql.ts';

export async function deleteExpiredOAuthArtifacts(db: CommonQueryMethods, batchSize: number): Promise<number> {
  const codes = await db.query(sql.typeAlias('void')`
    DELETE FROM oauth_authorization_codes WHERE code_hash IN (
      SELECT code_hash FROM oauth_authorization_codes WHERE expires_at < now() - interval '1 day' ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
  `);
  const refreshTokens = await db.query(sql.typeAlias('void')`
    DELETE FROM oauth_refresh_tokens WHERE token_hash IN (
      SELECT token_hash FROM oauth_refresh_tokens WHERE expires_at < now() ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
  `);
  const accessTokens = await db.query(sql.typeAlias('void')`
    DELETE FROM oauth_access_tokens WHERE jti IN (
      SELECT jti FROM oauth_access_tokens WHERE expires_at < now() ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
  `);
  const families = await db.query(sql.typeAlias('void')`
    DELETE FROM oauth_token_families WHERE id IN (
      SELECT f.id FROM oauth_token_families f
      WHERE f.created_at < now() - interval '1 day'
        AND NOT EXISTS (SELECT FROM oauth_refresh_tokens r WHERE r.family_id = f.id)
        AND NOT EXISTS (SELECT FROM oauth_access_tokens a WHERE a.family_id = f.id)
        AND NOT EXISTS (SELECT FROM oauth_authorization_codes c WHERE c.family_id = f.id)
      LIMIT ${batchSize} FOR UPDATE OF f SKIP LOCKED)
  `);
  return codes.rowCount + refreshTokens.rowCount + accessTokens.rowCount + families.rowCount;
}
