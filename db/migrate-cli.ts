// `npm run migrate`: applies pending migrations to DATABASE_URL and exits.
import { loadConfigOrExit } from '../platform/config.ts';
import { runMigrations } from './migrate.ts';

const config = loadConfigOrExit();
if (!config.databaseUrl) {
  process.stderr.write('rally: DATABASE_URL is required to run migrations on their own\n');
  process.exit(78);
}
const applied = await runMigrations(config.databaseUrl, (line) => process.stdout.write(`${line}\n`));
process.stdout.write(applied.length ? `${applied.length} migration(s) applied\n` : 'database is up to date\n');
