// What PostgreSQL spent per statement during a row, from pg_stat_statements (the bench's own server
// preloads it: bench-postgres.ts). A snapshot of the view before and after a window; the difference,
// per query id, is that window's work. Several windows of one row (interleaved rounds) add up.
import pg from 'pg';

export type StatementCost = Readonly<{
  /** The normalised text, cut to a readable length. */
  query: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  rows: number;
}>;

/** `toplevel`: sent by a client, not run inside a function or trigger (pg_stat_statements.track = 'all' counts both). */
export type Counters = { query: string; calls: number; totalMs: number; rows: number; toplevel: boolean };
export type StatementSnapshot = ReadonlyMap<string, Counters>;

const QUERY_CHARS = 240;
export const TOP_STATEMENTS = 10;

/** Reads the whole view; null when the extension is not loaded (a server the bench did not start). */
export async function snapshotStatements(client: pg.Client | null): Promise<StatementSnapshot | null> {
  if (!client) return null;
  try {
    const result = await client.query<{ key: string; query: string; calls: string; total: number; rows: string; toplevel: boolean }>(
      `SELECT userid::text || ':' || dbid::text || ':' || queryid::text || ':' || toplevel::text AS key, query, calls, total_exec_time AS total, rows, toplevel
       FROM pg_stat_statements WHERE queryid IS NOT NULL AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_user_tables%'`,
    );
    return new Map(
      result.rows.map((row) => [
        row.key,
        { query: row.query.replace(/\s+/g, ' ').trim(), calls: Number(row.calls), totalMs: row.total, rows: Number(row.rows), toplevel: row.toplevel },
      ]),
    );
  } catch {
    return null;
  }
}

/** Per query id, the work done between two snapshots (statements evicted meanwhile are lost; the view keeps 5,000). */
export function statementsBetween(before: StatementSnapshot | null, after: StatementSnapshot | null): Map<string, Counters> {
  const spent = new Map<string, Counters>();
  if (!before || !after) return spent;
  for (const [key, now] of after) {
    const then = before.get(key);
    const calls = now.calls - (then?.calls ?? 0);
    if (calls <= 0) continue;
    spent.set(key, { ...now, calls, totalMs: now.totalMs - (then?.totalMs ?? 0), rows: now.rows - (then?.rows ?? 0) });
  }
  return spent;
}

export function addStatements(into: Map<string, Counters>, more: ReadonlyMap<string, Counters>): void {
  for (const [key, counters] of more) {
    const known = into.get(key);
    into.set(
      key,
      known ? { ...known, calls: known.calls + counters.calls, totalMs: known.totalMs + counters.totalMs, rows: known.rows + counters.rows } : { ...counters },
    );
  }
}

/** The statements that took the most time, largest first. */
export function topStatements(spent: ReadonlyMap<string, Counters>, count = TOP_STATEMENTS): StatementCost[] {
  return [...spent.values()]
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, count)
    .map((counters) => ({
      query: counters.query.length > QUERY_CHARS ? `${counters.query.slice(0, QUERY_CHARS)}…` : counters.query,
      calls: counters.calls,
      totalMs: Math.round(counters.totalMs * 10) / 10,
      meanMs: Math.round((counters.totalMs / counters.calls) * 1000) / 1000,
      rows: counters.rows,
    }));
}
