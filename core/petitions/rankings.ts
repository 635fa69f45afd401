// Keeps the sortable copies of popularity current: petitions.signature_count (the sum of the live
// counter shards) and petitions.trending_score. Only petitions with recent signature activity are
// touched, so a run costs what the last minutes brought, not the size of the database.
import type { CommonQueryMethods } from 'slonik';
import { sql } from '../../db/sql.ts';

// Trending: each signature of the last 7 days weighs e^(-age / 24 h).
const TRENDING_WINDOW = '7 days';
const TRENDING_DECAY_SECONDS = 86_400;
// A stored score is rewritten only once it is more than 1% off. Decay alone multiplies every score by
// the same factor, so it never reorders petitions; rewriting each decaying score every minute left
// tens of thousands of dead rows (and GIN pending entries) a minute for search and lists to step over.
// At 1%, decay alone rewrites a petition about every 14 minutes, and a new signature on a small
// petition still shows at once.
const TRENDING_TOLERANCE = 0.01;

// Both statements answer only how many rows they changed (the command tag's count): returning the
// changed ids brought every one of them into the worker, tens of thousands a minute once many petitions
// have a decaying trending score (seen as a 120 MB jump of the idle worker at each scheduled run).

/** Copies the live count into petitions.signature_count for petitions signed or unsigned lately; returns how many changed. */
export async function rollUpSignatureCounts(db: CommonQueryMethods, lookbackSeconds: number): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    UPDATE petitions p SET signature_count = totals.total
    FROM (
      SELECT sc.petition_id, sum(sc.count)::bigint AS total FROM signature_counters sc
      WHERE sc.petition_id IN (
        SELECT DISTINCT e.petition_id FROM events e
        WHERE e.occurred_at > now() - make_interval(secs => ${lookbackSeconds})
          AND e.type IN ('signature.created', 'signature.removed')
      )
      GROUP BY sc.petition_id
    ) AS totals
    WHERE p.id = totals.petition_id AND p.signature_count IS DISTINCT FROM totals.total
  `);
  return result.rowCount;
}

/**
 * Recomputes trending scores of petitions signed in the window, and lets the others fall to zero;
 * writes only scores that moved by more than TRENDING_TOLERANCE.
 */
export async function refreshTrendingScores(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    WITH recent AS (
      SELECT petition_id, sum(exp(-extract(epoch FROM now() - created_at) / ${TRENDING_DECAY_SECONDS})) AS score
      FROM signatures WHERE created_at > now() - ${TRENDING_WINDOW}::interval
      GROUP BY petition_id
    ), affected AS (
      SELECT id FROM petitions WHERE trending_score > 0
      UNION SELECT petition_id FROM recent
    )
    UPDATE petitions p SET trending_score = COALESCE(recent.score, 0)
    FROM affected LEFT JOIN recent ON recent.petition_id = affected.id
    WHERE p.id = affected.id
      AND abs(p.trending_score - COALESCE(recent.score, 0)) > ${TRENDING_TOLERANCE} * greatest(p.trending_score, COALESCE(recent.score, 0))
  `);
  return result.rowCount;
}
