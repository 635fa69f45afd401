// Forgetting signers' details once a petition is done (issue 46, RALLY_SIGNER_DATA_RETENTION): that long after a petition closed (closed or victory), its
// signatures are anonymised by the one rule (anonymize.ts) in keyset batches. Counts, milestones and analytics come from counters and rollups that are already
// folded, so they do not change; the row keeps its petition, time and country.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { ENDED_PETITION_STATUSES } from '../vocabulary.ts';
import { STRIPPED } from './anonymize.ts';

/** Ended petitions whose signers' details are due for deletion: closed more than retentionMs ago. */
export function petitionsDueForSignerDataDeletion(db: CommonQueryMethods, retentionMs: number, limit: number): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM petitions
    WHERE status = ANY(${sql.array(ENDED_PETITION_STATUSES, 'text')}) AND signer_data_deleted_at IS NULL
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
    UPDATE signatures SET ${STRIPPED} FROM batch WHERE signatures.id = batch.id
    RETURNING batch.user_id`);
  const next = stripped.reduce<string | null>((last, userId) => (last === null || userId > last ? userId : last), null);
  return { stripped: stripped.length, next };
}

/** Marks the petition's signers' details as deleted (shown as signer_data_deleted_at). */
export async function markSignerDataDeleted(db: CommonQueryMethods, petitionId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`
    UPDATE petitions SET signer_data_deleted_at = now() WHERE id = ${petitionId} AND signer_data_deleted_at IS NULL`);
}
