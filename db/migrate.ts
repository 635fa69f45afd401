// Applies the plain SQL files in db/migrations/ in name order, each in its own transaction, and
// records them in schema_migrations. Runs through `pg` with the simple query protocol because a
// migration file holds many statements, which Slonik's prepared statements cannot carry.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

// Any constant works; it only keeps two processes (API start-up, tests) from migrating at once.
const MIGRATION_LOCK_ID = 7_301_042;

export type MigrationLog = (line: string) => void;

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<string[]> {
  const names = await readdir(dir);
  return names.filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name)).sort();
}

export async function runMigrations(databaseUrl: string, log: MigrationLog = () => {}): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name));
    const newlyApplied: string[] = [];
    for (const name of await listMigrations()) {
      if (applied.has(name)) continue;
      const text = await readFile(new URL(name, `file://${MIGRATIONS_DIR}`), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(text);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      log(`applied migration ${name}`);
      newlyApplied.push(name);
    }
    return newlyApplied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
