// Forgetting signers' details once a petition is done (issue 46, RALLY_SIGNER_DATA_RETENTION): that
// long after a petition closed (closed or victory), its signatures are stripped of everything that
// says who signed, in keyset batches. Counts, milestones and analytics come from counters and rollups
// that are already folded, so they do not change; the row keeps what the geo and source counts read.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

/**
 * The columns of `signatures` that identify or describe the signer, set to NULL when stripped (and
 * is_anonymous set true). Kept: id, petition_id, created_at, country (geo counts), source and
 * referrer_id (the sharer's credit, not the signer's detail).
 */
export const SIGNER_PERSONAL_COLUMNS = [
  'user_id',
  'comment',
  'display_location',
  'city',
  'region',
  'latitude',
  'longitude',
  'email_key',
  'network_hash',
] as const;

const STRIP = sql.join(
  [...SIGNER_PERSONAL_COLUMNS.map((column) => sql.fragment`${sql.identifier([column])} = NULL`), sql.fragment`is_anonymous = true`],
  sql.fragment`, `,
);

/** Ended petitions whose signers' details are due for deletion: closed more than retentionMs ago. */
export function petitionsDueForSignerDataDeletion(db: CommonQueryMethods, retentionMs: number, limit: number): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM petitions
    WHERE status IN ('closed', 'victory') AND signer_data_deleted_at IS NULL
      AND closed_at < now() - make_interval(secs => ${retentionMs / 1000})
    ORDER BY closed_at, id LIMIT ${limit}`);
}

/**
 * Strips up to batchSize signatures of the petition, walking its (petition_id, user_id) index from
 * `after` (a user id; null for the start). Returns how many and where to go on; a stripped row has no
 * user any more, so a batch repeated after a crash finds nothing left to do before the cursor.
 */
export async function stripSignerDataBatch(db: CommonQueryMethods, petitionId: string, after: string | null, batchSize: number) {
  const stripped = await db.anyFirst(sql.type(z.object({ user_id: z.string() }))`
    WITH batch AS (
      SELECT id, user_id FROM signatures
      WHERE petition_id = ${petitionId} AND user_id IS NOT NULL ${after === null ? sql.fragment`` : sql.fragment`AND user_id > ${after}`}
      ORDER BY user_id LIMIT ${batchSize}
      FOR UPDATE
    )
    UPDATE signatures s SET ${STRIP} FROM batch WHERE s.id = batch.id
    RETURNING batch.user_id`);
  const next = stripped.reduce<string | null>((last, userId) => (last === null || userId > last ? userId : last), null);
  return { stripped: stripped.length, next };
}

/** Marks the petition's signers' details as deleted (shown as signer_data_deleted_at). */
export async function markSignerDataDeleted(db: CommonQueryMethods, petitionId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE petitions SET signer_data_deleted_at = now() WHERE id = ${petitionId} AND signer_data_deleted_at IS NULL`);
}
