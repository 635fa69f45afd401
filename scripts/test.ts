// `npm test`: type-checks and lints, then runs the whole mocha suite against real services: the
// PostgreSQL at DATABASE_URL, else one on 127.0.0.1:5432, else an embedded one started here (each
// run makes and drops its own database), and a Temporal dev server started from the real CLI.
// Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../platform/config.ts';
import { startEmbeddedPostgres } from './lib/embedded-postgres.ts';
import { resolveTemporalCli } from './lib/temporal-cli.ts';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;
const say = (line: string) => process.stdout.write(`[test] ${line}\n`);

async function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  say(label);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) {
    say(`${label}: failed`);
    await stopEmbedded?.();
    process.exit(result.status ?? 1);
  }
}

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  return client.connect().then(
    () => client.end().then(() => true),
    () => false,
  );
}

const config = loadConfigOrExit();
let databaseUrl = config.databaseUrl ?? LOCAL_SERVER;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!config.databaseUrl) {
  if (await reachable(LOCAL_SERVER)) {
    say(`DATABASE_URL is not set; using the local server at ${LOCAL_SERVER}`);
  } else {
    say('DATABASE_URL is not set and nothing answers on 127.0.0.1:5432; starting an embedded PostgreSQL for the tests');
    const embedded = await startEmbeddedPostgres({ dataDir: path.resolve(ROOT, config.dataDir, 'test-postgres'), port: 5434, database: 'postgres', log: say });
    databaseUrl = embedded.databaseUrl;
    stopEmbedded = embedded.stop;
  }
}

const cliPath = await resolveTemporalCli(say);

// `npm test -- test/api/petitions.test.ts` runs the files named; `npm test -- --grep X` filters the
// whole suite. RALLY_SKIP_CHECKS=1 leaves out tsc, ESLint and Prettier while iterating on one file.
const args = process.argv.slice(2);
const files = args.filter((arg) => arg.endsWith('.ts'));
if (process.env.RALLY_SKIP_CHECKS !== '1') {
  await run('type-checking (tsc --noEmit)', `${BIN}tsc`, ['--noEmit', '-p', '.']);
  await run('linting (eslint)', `${BIN}eslint`, ['--config', 'scripts/eslint.config.js', '.']);
  await run('checking formatting (prettier --check)', `${BIN}prettier`, ['--check', '.']);
}
await run(
  'running the test suite (mocha)',
  process.execPath,
  [`${BIN}mocha`, '--require', 'test/setup.ts', '--extension', 'ts', '--recursive', '--timeout', '60000', '--exit', ...args, ...(files.length ? [] : ['test'])],
  { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, RALLY_TEMPORAL_CLI: cliPath },
);
await stopEmbedded?.();
