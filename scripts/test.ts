// `npm test`: type-checks and lints, then runs the mocha suite against real services (the PostgreSQL at
// DATABASE_URL, else 127.0.0.1:5432, else an embedded one; a Temporal dev server from the real CLI):
// most files in parallel test processes, then the few that need the machine alone (lib/test-groups.ts).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../platform/config.ts';
import { startEmbeddedPostgres } from './lib/embedded-postgres.ts';
import { resolveTemporalCli } from './lib/temporal-cli.ts';
import { DEFAULT_JOBS, listTestFiles, splitTestFiles } from './lib/test-groups.ts';
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
const named = args.filter((arg) => arg.endsWith('.ts'));
const mochaOptions = args.filter((arg) => !arg.endsWith('.ts'));
if (process.env.RALLY_SKIP_CHECKS !== '1') {
  await run('type-checking (tsc --noEmit)', `${BIN}tsc`, ['--noEmit', '-p', '.']);
  await run('linting (eslint)', `${BIN}eslint`, ['--config', 'scripts/eslint.config.js', '.']);
  await run('checking formatting (prettier --check)', `${BIN}prettier`, ['--check', '.']);
}

const files = named.length ? named.map((file) => path.relative(ROOT, path.resolve(file))) : await listTestFiles(ROOT);
const { parallel, serial } = splitTestFiles(files);
const jobs = Number(process.env.RALLY_TEST_JOBS ?? DEFAULT_JOBS);
const testEnv = { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, RALLY_TEMPORAL_CLI: cliPath };
const mocha = (parallelJobs: number, group: string[]) => [
  `${BIN}mocha`,
  '--require',
  'test/setup.ts',
  '--reporter',
  'scripts/lib/mocha-timing-reporter.ts',
  '--timeout',
  '60000',
  '--exit',
  ...(parallelJobs > 1 ? ['--parallel', '--jobs', String(parallelJobs)] : []),
  ...mochaOptions,
  ...group,
];
if (parallel.length) {
  const parallelJobs = Math.min(jobs, parallel.length);
  await run(`running ${parallel.length} test files, ${parallelJobs} at a time (mocha)`, process.execPath, mocha(parallelJobs, parallel), {
    ...testEnv,
    RALLY_TEST_JOBS: String(parallelJobs),
  });
}
if (serial.length) {
  await run(`running ${serial.length} test files that need the machine to themselves, one at a time (mocha)`, process.execPath, mocha(1, serial), {
    ...testEnv,
    RALLY_TEST_JOBS: '1',
  });
}
await stopEmbedded?.();
