// Keeps the sortable copies of popularity current: petitions.signature_count (the sum of the live
// counter shards) and petitions.trending_score. Only petitions with recent signature activity are
// touched, so a run costs what the last minutes brought, not the size of the database.
import type { CommonQueryMethods, FragmentSqlToken } from 'slonik';
import { sql } from '../../db/sql.ts';

// Trending: each signature of the last 7 days weighs e^(-age / 24 h).
const TRENDING_WINDOW = '7 days';
const TRENDING_DECAY_SECONDS = 86_400;
// petitions.trending_score stores the score in forward-decay form: ln(score) + (now - epoch) / 24 h,
// which is ln of the sum of e^((signed_at - epoch) / 24 h) and so does not change while the score
// decays; 0 means no signature in the window (any signature after the epoch makes it positive).
// Decay scales every score alike and never reorders petitions, so the stored form sorts as the
// scores do; stored as the score itself, every score had to be rewritten as it decayed (thousands
// of petition rows and their index entries every quarter of an hour). Now a row is rewritten only
// when its own signatures move it by more than TRENDING_TOLERANCE.
const TRENDING_EPOCH = '2026-01-01T00:00:00Z';
const TRENDING_TOLERANCE = 0.01;
const daysSinceEpoch = sql.fragment`(extract(epoch FROM now() - ${TRENDING_EPOCH}::timestamptz) / ${TRENDING_DECAY_SECONDS})`;

/** The trending score now (each signature of the last 7 days weighing e^(-age / 24 h)) of a stored petitions.trending_score. */
export const trendingScoreNow = (stored: FragmentSqlToken) =>
  sql.fragment`(CASE WHEN ${stored} > 0 THEN exp(${stored} - ${daysSinceEpoch}) ELSE 0 END)::float8`;

/**
 * A signature's weight relative to the start of its hour, e^((signedAt - hour) / 24 h): the hourly
 * rollup sums it (decay_weight, migration 0035), so that e^(-age / 24 h) of every signature of an hour
 * is that sum times e^(-(now - hour) / 24 h), read from one row instead of one per signature.
 */
export const hourDecayWeight = (signedAt: FragmentSqlToken) =>
  sql.fragment`exp(extract(epoch FROM ${signedAt} - date_trunc('hour', ${signedAt})) / ${TRENDING_DECAY_SECONDS})`;

/**
 * Each petition's trending score in stored form, from the hourly rollup (the hour straddling the
 * window's start counts whole) and the signatures still queued for the fold: a refresh costs hours
 * and the last minute, not a week of rows. `petitionIds` (a query of ids) narrows it; without it,
 * every petition signed in the window.
 */
function storedTrendingScores(petitionIds?: FragmentSqlToken) {
  const narrowed = petitionIds ? sql.fragment`AND petition_id IN (${petitionIds})` : sql.fragment``;
  // A sum left a hair above 0 by removed signatures' rounding is no signature (the 1e-9).
  return sql.fragment`
    SELECT petition_id, CASE WHEN sum(score) > 1e-9 THEN ln(sum(score)) + ${daysSinceEpoch} ELSE 0 END AS stored
    FROM (
      SELECT petition_id, decay_weight * exp(-extract(epoch FROM now() - hour) / ${TRENDING_DECAY_SECONDS}) AS score
      FROM petition_signatures_hourly WHERE hour > now() - ${TRENDING_WINDOW}::interval - interval '1 hour' ${narrowed}
      UNION ALL
      SELECT petition_id, delta * exp(-extract(epoch FROM now() - signed_at) / ${TRENDING_DECAY_SECONDS})
      FROM signature_rollup_queue WHERE signed_at > now() - ${TRENDING_WINDOW}::interval ${narrowed}
    ) AS weighed
    GROUP BY petition_id`;
}

// Both statements answer only how many rows they changed (the command tag's count): returning the
// changed ids brought every one of them into the worker, tens of thousands a minute once many petitions
// have a decaying trending score (seen as a 120 MB jump of the idle worker at each scheduled run).

/**
 * Copies the live count into petitions.signature_count for petitions signed or unsigned lately, and
 * their trending scores with it; returns how many changed. Both columns are indexed, so no update of
 * a petition is HOT: each adds entries to every index of the table, the full-text ones included
 * (1-2 ms a row in the bench). Written together, a petition signed in the last minute is rewritten
 * once a minute, not once per column; refreshTrendingScores then finds its score current.
 */
export async function rollUpSignatureCounts(db: CommonQueryMethods, lookbackSeconds: number): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    WITH signed AS (
      SELECT DISTINCT e.petition_id FROM events e
      WHERE e.occurred_at > now() - make_interval(secs => ${lookbackSeconds})
        AND e.type IN ('signature.created', 'signature.removed')
    ), totals AS (
      SELECT sc.petition_id, sum(sc.count)::bigint AS total FROM signature_counters sc
      WHERE sc.petition_id IN (SELECT petition_id FROM signed)
      GROUP BY sc.petition_id
    ), trending AS (${storedTrendingScores(sql.fragment`SELECT petition_id FROM signed`)})
    UPDATE petitions p SET signature_count = totals.total, trending_score = COALESCE(trending.stored, 0)
    FROM totals LEFT JOIN trending ON trending.petition_id = totals.petition_id
    WHERE p.id = totals.petition_id AND p.signature_count IS DISTINCT FROM totals.total
  `);
  return result.rowCount;
}

/**
 * Recomputes the trending scores of petitions signed in the window and lets the others fall to zero;
 * writes only scores that moved by more than TRENDING_TOLERANCE (in forward-decay form, decay alone
 * moves none).
 */
export async function refreshTrendingScores(db: CommonQueryMethods): Promise<number> {
  const result = await db.query(sql.typeAlias('void')`
    WITH recent AS (${storedTrendingScores()}), affected AS (
      SELECT id FROM petitions WHERE trending_score > 0
      UNION SELECT petition_id FROM recent
    )
    UPDATE petitions p SET trending_score = COALESCE(recent.stored, 0)
    FROM affected LEFT JOIN recent ON recent.petition_id = affected.id
    WHERE p.id = affected.id AND abs(p.trending_score - COALESCE(recent.stored, 0)) > ln(1 + ${TRENDING_TOLERANCE}::float8)
  `);
  return result.rowCount;
}
