// Rows written per table during a window, from pg_stat_user_tables (inserts + updates): what a row costs PostgreSQL in row versions, e.g. the rate limiter's
// bucket rows per signature. The counters reach the view when a backend reports its statistics (at most once a second while it is busy), so a window's figure
// may miss up to a second at each end: rows run for 15 s and more.
import type pg from 'pg';

export type TableWrites = ReadonlyMap<string, number>;

export async function snapshotTableWrites(client: pg.Client | null): Promise<TableWrites | null> {
  if (!client) return null;
  try {
    const result = await client.query<{ name: string; written: string }>(
      `SELECT relname AS name, (n_tup_ins + n_tup_upd)::text AS written FROM pg_stat_user_tables WHERE schemaname = 'public'`,
    );
    return new Map(result.rows.map((row) => [row.name, Number(row.written)]));
  } catch {
    return null;
  }
}

/** Rows written per table between two snapshots; partitions count under their own names. */
export function tableWritesBetween(before: TableWrites | null, after: TableWrites | null): Map<string, number> {
  const written = new Map<string, number>();
  if (!before || !after) return written;
  for (const [table, now] of after) {
    const delta = now - (before.get(table) ?? 0);
    if (delta > 0) written.set(table, delta);
  }
  return written;
}
