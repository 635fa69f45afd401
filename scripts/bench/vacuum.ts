// Does what autovacuum would, on a server where it is off: the bench database is kept between runs, and every run leaves dead rows behind (a search matching
// 4,300 petitions visited twice as many row versions). Production servers run autovacuum; this gives the bench the same tables, by autovacuum's own default
// rule: dead rows above 50 + 20% of the live ones.
import pg from 'pg';

const THRESHOLD_ROWS = 50;
const SCALE_FACTOR = 0.2;

export async function vacuumIfAutovacuumIsOff(databaseUrl: string, log: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const setting = await client.query<{ autovacuum: string }>('SHOW autovacuum');
    if (setting.rows[0]?.autovacuum === 'on') return;
    const due = await client.query<{ name: string; dead: string }>(
      `SELECT format('%I.%I', schemaname, relname) AS name, n_dead_tup::text AS dead FROM pg_stat_user_tables
       WHERE n_dead_tup > $1::float8 + $2::float8 * n_live_tup ORDER BY n_dead_tup DESC`,
      [THRESHOLD_ROWS, SCALE_FACTOR],
    );
    for (const table of due.rows) {
      const started = Date.now();
      await client.query(`VACUUM (ANALYZE) ${table.name}`);
      log(
        `autovacuum is off on this server: vacuumed ${table.name} ` +
          `(${Number(table.dead).toLocaleString('en-US')} dead rows) in ` +
          `${((Date.now() - started) / 1_000).toFixed(1)} s`,
      );
    }
  } finally {
    await client.end();
  }
}
