// Forgetting the app authorization server's records whose time is over, in bounded batches (the purgeOAuthArtifacts workflow calls this hourly): codes, refresh
// tokens, grants, sessions and interactions. They are kept a day past expiry, so an expired refresh token is still told apart from an unknown one (401
// token_expired); reads never see them meanwhile.
import type { CommonQueryMethods } from 'slonik';
import { sql } from '../../db/sql.ts';

export async function deleteExpiredOAuthArtifacts(db: CommonQueryMethods, batchSize: number): Promise<number> {
  const deleted = await db.query(sql.typeAlias('void')`
    DELETE FROM oauth_server_records WHERE (model, id) IN (
      SELECT model, id FROM oauth_server_records WHERE expires_at < now() - interval '1 day'
      ORDER BY expires_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
  `);
  return deleted.rowCount;
}
