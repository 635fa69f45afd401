// A petition's signatures by country, city or traffic source over a date range, from the rollups. When the range covers every hour the petition has signatures
// in, the all-time rollup answers (one indexed read of the top rows, however old and busy the petition); otherwise the per-day rollup is summed over the range
// (petition_signature_breakdown_daily, its primary key ordered for this).
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

export type Dimension = 'country' | 'city' | 'source';
export type DateRange = { start: string; end: string };

const Ranked = z.object({ value: z.string(), context: z.string(), signatures: z.number() });
const Span = z.object({ covered: z.boolean() });

/** Whether [start, end] (UTC days) holds every signature the petition's hourly rollup knows of. */
async function coversAllSignatures(db: CommonQueryMethods, petitionId: string, range: DateRange): Promise<boolean> {
  return db.oneFirst(sql.type(Span)`
    SELECT COALESCE(
      (SELECT hour FROM petition_signatures_hourly WHERE petition_id = ${petitionId} ORDER BY hour LIMIT 1) >=
      (${range.start}::date::timestamp AT TIME ZONE 'UTC')
      AND (SELECT hour FROM petition_signatures_hourly WHERE petition_id = ${petitionId} ORDER BY hour DESC LIMIT 1)
      < ((${range.end}::date + 1)::timestamp AT TIME ZONE 'UTC'),
      true) AS covered
  `);
}

export type Breakdown = (dimension: Dimension, limit: number) => Promise<readonly z.infer<typeof Ranked>[]>;

/** The top `limit` values of a dimension in the range, busiest first. */
export async function breakdownFor(db: CommonQueryMethods, petitionId: string, range: DateRange): Promise<Breakdown> {
  const allTime = await coversAllSignatures(db, petitionId, range);
  return (dimension, limit) =>
    allTime
      ? db.any(sql.type(Ranked)`
        SELECT value, context, signatures::bigint AS signatures FROM petition_signature_breakdown
        WHERE petition_id = ${petitionId} AND dimension = ${dimension} AND signatures > 0
        ORDER BY signatures DESC, value LIMIT ${limit}`)
      : db.any(sql.type(Ranked)`
        SELECT value, context, sum(signatures)::bigint AS signatures FROM petition_signature_breakdown_daily
        WHERE petition_id = ${petitionId} AND dimension = ${dimension} AND day BETWEEN ${range.start}::date AND ${range.end}::date
        GROUP BY value, context HAVING sum(signatures) > 0
        ORDER BY 3 DESC, value LIMIT ${limit}`);
}
