// GET /v1/petitions/{id}/analytics, read from the rollups only (never the signatures table): the growth series per day, week or month with every period
// present, the signers' countries and cities, where they came from (breakdown.ts), and views of its page and widget, all within the range. Figures are as of
// the last fold (`as_of`).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { breakdownFor } from './breakdown.ts';
import { invalidField, NotFound } from '../errors/domain-error.ts';
import { assertCanManage, type Viewer } from '../petitions/policy.ts';
import type { PetitionRow } from '../petitions/queries.ts';

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** At most two years per request, so a daily series stays under 732 points. */
export const MAX_RANGE_DAYS = 731;
const TOP = 20;

/** Those who manage the petition (its creator, its organization's admins) or a platform administrator; anyone else 403, an unknown petition 404. */
export function assertMayViewAnalytics(petition: PetitionRow | null, viewer: Viewer): asserts petition is PetitionRow {
  if (!petition) throw new NotFound('There is no such petition.');
  if (viewer.role === 'admin') return;
  assertCanManage(viewer, petition);
}

const DAY_MS = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The requested range, defaulted (end: today in UTC; start: the petition's first day, within two years) and checked. */
export function analyticsRange(petition: PetitionRow, startDate: string | undefined, endDate: string | undefined): { start: string; end: string } {
  const end = endDate ?? isoDate(Date.now());
  const earliest = Date.parse(end) - (MAX_RANGE_DAYS - 1) * DAY_MS;
  const start = startDate ?? isoDate(Math.max(Date.parse(petition.created_at.slice(0, 10)), earliest));
  if (Date.parse(end) < Date.parse(start)) throw invalidField('end_date', 'invalid_range', 'must not be before start_date');
  if ((Date.parse(end) - Date.parse(start)) / DAY_MS + 1 > MAX_RANGE_DAYS)
    throw invalidField('start_date', 'range_too_long', `the range may cover at most ${MAX_RANGE_DAYS} days (two years)`);
  return { start, end };
}

const Period = z.object({ period_start: z.string(), signatures: z.number(), cumulative: z.number() });
const Totals = z.object({ total: z.number(), page_views: z.number(), widget_views: z.number(), as_of: z.string().nullable() });

export async function petitionAnalytics(db: CommonQueryMethods, petitionId: string, range: { start: string; end: string }, granularity: Granularity) {
  const from = sql.fragment`(${range.start}::date::timestamp AT TIME ZONE 'UTC')`;
  const until = sql.fragment`((${range.end}::date + 1)::timestamp AT TIME ZONE 'UTC')`;
  const series = await db.any(sql.type(Period)`
    WITH periods AS (
      SELECT generate_series(date_trunc(${granularity}, ${range.start}::date::timestamp),
      ${range.end}::date::timestamp, ${`1 ${granularity}`}::interval)::date AS period_start
    ), counts AS (
      SELECT date_trunc(${granularity}, hour AT TIME ZONE 'UTC')::date AS period_start, sum(signatures)::bigint AS signatures
      FROM petition_signatures_hourly WHERE petition_id = ${petitionId} AND hour >= ${from} AND hour < ${until}
      GROUP BY 1
    ), before AS (
      SELECT COALESCE(sum(signatures), 0)::bigint AS signatures FROM petition_signatures_hourly WHERE petition_id = ${petitionId} AND hour < ${from}
    )
    SELECT to_char(periods.period_start, 'YYYY-MM-DD') AS period_start, COALESCE(counts.signatures, 0)::bigint AS signatures,
      ((SELECT signatures FROM before) + sum(COALESCE(counts.signatures, 0)) OVER (ORDER BY periods.period_start))::bigint AS cumulative
    FROM periods LEFT JOIN counts USING (period_start)
    ORDER BY periods.period_start
  `);
  const ranked = await breakdownFor(db, petitionId, range);
  const [countries, cities, sources] = [await ranked('country', TOP), await ranked('city', TOP), await ranked('source', TOP)];
  const totals = await db.one(sql.type(Totals)`
    -- The series' last cumulative figure already counts everything up to the range's end: only later hours are added.
    SELECT (${series.at(-1)?.cumulative ?? 0}::bigint
      + (SELECT COALESCE(sum(signatures), 0) FROM petition_signatures_hourly WHERE petition_id = ${petitionId} AND hour >= ${until}))::bigint AS total,
      (SELECT COALESCE(sum(views), 0) FROM petition_page_views_hourly
       WHERE petition_id = ${petitionId} AND hour >= ${from} AND hour < ${until})::bigint AS page_views,
      (SELECT COALESCE(sum(widget_views), 0) FROM petition_page_views_hourly
       WHERE petition_id = ${petitionId} AND hour >= ${from} AND hour < ${until})::bigint AS widget_views,
      (SELECT folded_at FROM analytics_fold_state WHERE name = 'signatures') AS as_of
  `);
  return {
    petition_id: petitionId,
    start_date: range.start,
    end_date: range.end,
    granularity,
    signature_count: totals.total,
    series: [...series],
    geography: {
      countries: countries.map((row) => ({ country: row.value || null, signatures: row.signatures })),
      cities: cities.map((row) => ({ city: row.value, country: row.context || null, signatures: row.signatures })),
    },
    traffic_sources: sources.map((row) => ({ source: row.value, signatures: row.signatures })),
    page_views: totals.page_views,
    widget_views: totals.widget_views,
    as_of: totals.as_of,
  };
}
