// The one rule for stripping a signature of everything that identifies its signer (issue 46), when a signer deletes their account and when a closed petition's
// signer data is forgotten. The row keeps its petition, time and country, so counts, milestones and the (already folded) breakdowns do not change. Never
// `signature.removed` (it was not withdrawn); the opt-in `signature.anonymized` tells integrators which ids to forget, one event per petition.
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { recordEvent } from '../events/record-event.ts';

/** Columns an anonymised signature still holds (docs/operations/privacy.md names the same). */
export const ANONYMIZED_SIGNATURE_KEEPS = ['id', 'petition_id', 'country', 'created_at', 'is_anonymous'] as const;

/** What an anonymised signature's personal columns are set to (invalidated_signatures has no `source`). */
const STRIPPED_COMMON = sql.fragment`user_id = NULL, comment = NULL, is_anonymous = true, display_location = NULL, city = NULL, region = NULL,
  latitude = NULL, longitude = NULL, referrer_id = NULL, email_key = NULL, network_hash = NULL`;
/** The SET list of the rule, for callers that choose their own batches (signer-data retention). */
export const STRIPPED = sql.fragment`${STRIPPED_COMMON}, source = NULL`;

/** True for a row that still holds something the rule strips. */
const NOT_YET_STRIPPED_COMMON = sql.fragment`s.user_id IS NOT NULL OR s.comment IS NOT NULL OR NOT s.is_anonymous OR s.display_location IS NOT NULL
  OR s.city IS NOT NULL OR s.region IS NOT NULL OR s.latitude IS NOT NULL OR s.longitude IS NOT NULL OR s.referrer_id IS NOT NULL
  OR s.email_key IS NOT NULL OR s.network_hash IS NOT NULL`;
const NOT_YET_STRIPPED = sql.fragment`(${NOT_YET_STRIPPED_COMMON} OR s.source IS NOT NULL)`;

/**
 * Anonymises one keyset batch: up to `limit` signatures matching `where` (a condition on `s`, e.g.
 * `s.user_id = $1` or `s.petition_id = $1`), taken in id order after `afterId`. Returns the ids done
 * and the last id looked at, so the caller resumes after it; fewer than `limit` means done. Safe to
 * repeat: a row already stripped is skipped. Rows locked by a signer are skipped too and found by the
 * caller's next pass.
 */
export async function anonymizeSignatureBatch(
  tx: CommonQueryMethods,
  where: FragmentSqlToken,
  limit: number,
  afterId: string | null = null,
): Promise<{ anonymized: number; lastId: string | null; byPetition: Map<string, string[]> }> {
  const rows = await tx.any(sql.type(z.object({ id: z.string(), petition_id: z.string() }))`
    WITH batch AS (
      SELECT s.id FROM signatures s
      WHERE ${where} AND ${NOT_YET_STRIPPED} ${afterId ? sql.fragment`AND s.id > ${afterId}` : sql.fragment``}
      ORDER BY s.id LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE signatures SET ${STRIPPED} FROM batch WHERE signatures.id = batch.id
    RETURNING signatures.id, signatures.petition_id
  `);
  const byPetition = new Map<string, string[]>();
  for (const row of rows) byPetition.set(row.petition_id, [...(byPetition.get(row.petition_id) ?? []), row.id]);
  const sorted = rows.map((row) => row.id).sort();
  return { anonymized: rows.length, lastId: sorted.at(-1) ?? afterId, byPetition };
}

/**
 * One `signature.anonymized` event per petition for what a batch stripped: the petition, the
 * signatures' ids (so an integrator can forget what it holds under them), their count, and why; no
 * personal data. Delivered only to endpoints that list it (webhook subscriptions name each event).
 */
export async function recordAnonymized(tx: CommonQueryMethods, byPetition: ReadonlyMap<string, readonly string[]>, reason: 'account_deleted') {
  for (const [petitionId, ids] of byPetition) {
    await recordEvent(tx, {
      type: 'signature.anonymized',
      actor: { type: 'system', id: null },
      petitionId,
      data: { petition_id: petitionId, signature_ids: [...ids].sort(), count: ids.length, reason },
    });
  }
}

/** The same rule for signatures an invalidation set aside (they name their signer the same way). */
export async function anonymizeInvalidatedSignatures(tx: CommonQueryMethods, where: FragmentSqlToken): Promise<number> {
  const result = await tx.query(sql.typeAlias('void')`
    UPDATE invalidated_signatures s SET ${STRIPPED_COMMON} WHERE ${where} AND (${NOT_YET_STRIPPED_COMMON})
  `);
  return result.rowCount;
}
