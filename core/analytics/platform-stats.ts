// GET /v1/analytics/stats: public figures about publicly listed petitions only, read from the rollups and the petitions' own indexed columns: daily totals
// (signatures, petitions published, victories), trending petitions with their scores, and signatures by country. Narrowed to one petition with petition_id,
// which must itself be publicly listed.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { invalidField, NotFound } from '../errors/domain-error.ts';
import { PUBLICLY_LISTED } from '../search/publicly-listed.ts';
import { trendingScoreNow } from '../petitions/rankings.ts';
import { breakdownFor } from './breakdown.ts';
import { MAX_RANGE_DAYS } from './petition-analytics.ts';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;

export function statsRange(startDate: string | undefined, endDate: string | undefined): { start: string; end: string } {
  const end = endDate ?? new Date().toISOString().slice(0, 10);
  const start = startDate ?? new Date(Date.parse(end) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  if (Date.parse(end) < Date.parse(start)) throw invalidField('end_date', 'invalid_range', 'must not be before start_date');
  if ((Date.parse(end) - Date.parse(start)) / DAY_MS + 1 > MAX_RANGE_DAYS)
    throw invalidField('start_date', 'range_too_long', `the range may cover at most ${MAX_RANGE_DAYS} days (two years)`);
  return { start, end };
}

const Day = z.object({ date: z.string(), signatures: z.number(), new_petitions: z.number(), victories: z.number() });
const Trending = z.object({ id: z.string(), slug: z.string(), title: z.string(), signature_count: z.number(), trending_score: z.number() });
const Country = z.object({ country: z.string().nullable(), signatures: z.number() });
const Listed = z.object({ id: z.string(), signature_privacy: z.string() });

export type StatsQuery = { petitionId?: string; start: string; end: string; limit: number };

export async function platformStats(db: CommonQueryMethods, query: StatsQuery) {
  const one = query.petitionId
    ? await db.maybeOne(sql.type(Listed)`SELECT p.id, p.signature_privacy FROM petitions p WHERE p.id = ${query.petitionId} AND ${PUBLICLY_LISTED}`)
    : null;
  if (query.petitionId && !one) throw new NotFound('There is no such publicly listed petition.');
  const onlyPetition = one ? sql.fragment`AND p.id = ${one.id}` : sql.fragment``;
  const from = sql.fragment`(${query.start}::date::timestamp AT TIME ZONE 'UTC')`;
  const until = sql.fragment`((${query.end}::date + 1)::timestamp AT TIME ZONE 'UTC')`;
  const signaturesPerDay = one
    ? sql.fragment`SELECT (hour AT TIME ZONE 'UTC')::date AS day, sum(signatures)::bigint AS n FROM petition_signatures_hourly
      WHERE petition_id = ${one.id} AND hour >= ${from} AND hour < ${until} GROUP BY 1`
    : sql.fragment`SELECT day, sum(signatures)::bigint AS n FROM signatures_country_daily
      WHERE day BETWEEN ${query.start}::date AND ${query.end}::date GROUP BY 1`;
  const daily = await db.any(sql.type(Day)`
    WITH days AS (SELECT generate_series(${query.start}::date, ${query.end}::date, '1 day')::date AS day),
    signed AS (${signaturesPerDay}),
    published AS (SELECT (p.published_at AT TIME ZONE 'UTC')::date AS day, count(*)::bigint AS n FROM petitions p
      WHERE ${PUBLICLY_LISTED} AND p.published_at >= ${from} AND p.published_at < ${until} ${onlyPetition} GROUP BY 1),
    won AS (SELECT (p.closed_at AT TIME ZONE 'UTC')::date AS day, count(*)::bigint AS n FROM petitions p
      WHERE ${PUBLICLY_LISTED} AND p.status = 'victory' AND p.closed_at >= ${from} AND p.closed_at < ${until} ${onlyPetition} GROUP BY 1)
    SELECT to_char(days.day, 'YYYY-MM-DD') AS date, COALESCE(signed.n, 0)::bigint AS signatures,
      COALESCE(published.n, 0)::bigint AS new_petitions, COALESCE(won.n, 0)::bigint AS victories
    FROM days LEFT JOIN signed USING (day) LEFT JOIN published USING (day) LEFT JOIN won USING (day)
    ORDER BY days.day
  `);
  const trending = await db.any(sql.type(Trending)`
    SELECT p.id, p.slug, p.title,
      COALESCE((SELECT sum(sc.count) FROM signature_counters sc WHERE sc.petition_id = p.id), 0)::bigint AS signature_count,
      ${trendingScoreNow(sql.fragment`p.trending_score`)} AS trending_score
    FROM petitions p WHERE ${PUBLICLY_LISTED} AND p.trending_score > 0 ${onlyPetition}
    ORDER BY p.trending_score DESC, p.id DESC LIMIT ${query.limit}
  `);
  // Where one petition's signers live is shown only when its signatures are public.
  const geography = one
    ? one.signature_privacy !== 'public'
      ? []
      : (await (await breakdownFor(db, one.id, query))('country', query.limit)).map((row) => ({ country: row.value || null, signatures: row.signatures }))
    : await db.any(sql.type(Country)`
        SELECT NULLIF(country, '') AS country, sum(signatures)::bigint AS signatures FROM signatures_country_daily
        WHERE day BETWEEN ${query.start}::date AND ${query.end}::date GROUP BY country HAVING sum(signatures) > 0
        ORDER BY 2 DESC, country LIMIT ${query.limit}`);
  return {
    petition_id: query.petitionId ?? null,
    start_date: query.start,
    end_date: query.end,
    daily: [...daily],
    trending: [...trending],
    geography: [...geography],
  };
}
