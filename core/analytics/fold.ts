// Folds the signature rollup queue (filled by a trigger on signatures, migration 0015) into the rollup tables analytics reads. One statement takes a batch of
// queue rows (deleting them) and adds them to every rollup: it commits whole or not at all, so a batch is counted exactly once however often a fold is killed
// and restarted. SKIP LOCKED lets two folds run side by side safely.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { hourDecayWeight } from '../petitions/rankings.ts';

const Folded = z.object({ folded: z.number(), last_queue_id: z.number().nullable() });

/** Folds at most `batchSize` queued signature changes; answers how many it folded (0: nothing left). */
export async function foldSignatureBatch(db: CommonQueryMethods, batchSize: number): Promise<number> {
  const result = await db.one(sql.type(Folded)`
    WITH batch AS (
      DELETE FROM signature_rollup_queue
      WHERE id IN (SELECT id FROM signature_rollup_queue ORDER BY id LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
      RETURNING id, petition_id, signed_at, country, city, source, referrer_id, delta
    ), dated AS (
      SELECT batch.*, (signed_at AT TIME ZONE 'UTC')::date AS day FROM batch
    ), hourly AS (
      -- decay_weight: what the hour's signatures weigh in trending (core/petitions/rankings.ts, migration 0035).
      INSERT INTO petition_signatures_hourly AS rollup (petition_id, hour, signatures, decay_weight)
      SELECT petition_id, date_trunc('hour', signed_at), sum(delta), sum(delta * ${hourDecayWeight(sql.fragment`signed_at`)})
      FROM batch GROUP BY 1, 2
      ON CONFLICT ON CONSTRAINT petition_signatures_hourly_pkey
      DO UPDATE SET signatures = rollup.signatures + EXCLUDED.signatures, decay_weight = rollup.decay_weight + EXCLUDED.decay_weight
      RETURNING 1
    ), breakdown AS (
      INSERT INTO petition_signature_breakdown AS rollup (petition_id, dimension, value, context, signatures)
      SELECT petition_id, 'country', COALESCE(country, ''), '', sum(delta) FROM batch GROUP BY 1, 3
      UNION ALL
      SELECT petition_id, 'city', city, COALESCE(country, ''), sum(delta) FROM batch WHERE city IS NOT NULL GROUP BY 1, 3, 4
      UNION ALL
      -- The source the signing page named; else a share link's sharer; else a direct visit.
      SELECT b.petition_id, 'source', COALESCE(b.source, 'share:' || u.slug, 'direct'), '', sum(b.delta)
      FROM batch b LEFT JOIN users u ON u.id = b.referrer_id GROUP BY 1, 3
      ON CONFLICT ON CONSTRAINT petition_signature_breakdown_pkey DO UPDATE SET signatures = rollup.signatures + EXCLUDED.signatures
      RETURNING 1
    ), breakdown_daily AS (
      -- The same per UTC day, so analytics can answer a date range (migration 0018).
      INSERT INTO petition_signature_breakdown_daily AS rollup (petition_id, day, dimension, value, context, signatures)
      SELECT petition_id, day, 'country', COALESCE(country, ''), '', sum(delta) FROM dated GROUP BY 1, 2, 4
      UNION ALL
      SELECT petition_id, day, 'city', city, COALESCE(country, ''), sum(delta) FROM dated WHERE city IS NOT NULL GROUP BY 1, 2, 4, 5
      UNION ALL
      SELECT d.petition_id, d.day, 'source', COALESCE(d.source, 'share:' || u.slug, 'direct'), '', sum(d.delta)
      FROM dated d LEFT JOIN users u ON u.id = d.referrer_id GROUP BY 1, 2, 4
      ON CONFLICT ON CONSTRAINT petition_signature_breakdown_daily_pkey DO UPDATE SET signatures = rollup.signatures + EXCLUDED.signatures
      RETURNING 1
    ), countries AS (
      -- Platform-wide figures count public petitions only (as they are when folded).
      INSERT INTO signatures_country_daily AS rollup (day, country, signatures)
      SELECT (b.signed_at AT TIME ZONE 'UTC')::date, COALESCE(b.country, ''), sum(b.delta)
      FROM batch b JOIN petitions p ON p.id = b.petition_id AND p.visibility = 'public'
      GROUP BY 1, 2
      ON CONFLICT ON CONSTRAINT signatures_country_daily_pkey DO UPDATE SET signatures = rollup.signatures + EXCLUDED.signatures
      RETURNING 1
    ), position AS (
      UPDATE analytics_fold_state SET
        last_queue_id = GREATEST(last_queue_id, (SELECT max(id) FROM batch)),
        folded_rows = folded_rows + (SELECT count(*) FROM batch),
        folded_at = now()
      WHERE name = 'signatures' AND EXISTS (SELECT 1 FROM batch)
      RETURNING last_queue_id
    )
    SELECT (SELECT count(*) FROM batch)::int AS folded, (SELECT last_queue_id FROM position) AS last_queue_id
  `);
  return result.folded;
}
