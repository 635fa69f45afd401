// `npm test`: runs the mocha suite against real services (the PostgreSQL at DATABASE_URL, else 127.0.0.1:5432,
// else an embedded one; a Temporal dev server from the real CLI), most files in parallel test processes while
// tsc, ESLint and Prettier check the tree beside them, then the few files that need the machine alone.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../platform/config.ts';
import { startEmbeddedPostgres } from './lib/embedded-postgres.ts';
import { resolveTemporalCli } from './lib/temporal-cli.ts';
import { DEFAULT_JOBS, listTestFiles, splitTestFiles } from './lib/test-groups.ts';
import { checkLabels, runTreeChecks, type CheckResult } from './lib/tree-checks.ts';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;
const say = (line: string) => process.stdout.write(`[test] ${line}\n`);

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
const skipChecks = process.env.RALLY_SKIP_CHECKS === '1';
if (!skipChecks) say(`checking the tree beside the tests: ${checkLabels(BIN).join(', ')}`);
const checks: Promise<CheckResult[]> = skipChecks ? Promise.resolve([]) : runTreeChecks(ROOT, BIN);

/** Ends the run: every failed check is printed, and the exit code says whether anything failed. */
async function finish(testStatus: number): Promise<never> {
  const failed = (await checks).filter((check) => !check.ok);
  for (const check of failed) say(`${check.label}: failed\n${check.output}`);
  await stopEmbedded?.();
  process.exit(testStatus !== 0 ? testStatus : failed.length > 0 ? 1 : 0);
}

async function runMocha(label: string, mochaArgs: string[], env: NodeJS.ProcessEnv): Promise<void> {
  say(label);
  const child = spawn(process.execPath, [`${BIN}mocha`, ...mochaArgs], { cwd: ROOT, stdio: 'inherit', env });
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (status === 0) return;
  say(`${label}: failed`);
  await finish(status ?? 1);
}

const files = named.length ? named.map((file) => path.relative(ROOT, path.resolve(file))) : await listTestFiles(ROOT);
const { parallel, serial } = splitTestFiles(files);
const jobs = Number(process.env.RALLY_TEST_JOBS ?? DEFAULT_JOBS);
// Node's compile cache (keyed by each file's content) spares the hundreds of API and worker processes the
// tests start most of the work of loading Rally's modules again: about a third of each start's CPU.
const compileCache = path.resolve(ROOT, config.dataDir, 'compile-cache');
const testEnv = { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, RALLY_TEMPORAL_CLI: cliPath, NODE_COMPILE_CACHE: compileCache };
const mochaArgs = (parallelJobs: number, group: string[]) => [
  ...['--require', 'test/setup.ts', '--reporter', 'scripts/lib/mocha-timing-reporter.ts', '--timeout', '60000', '--exit'],
  ...(parallelJobs > 1 ? ['--parallel', '--jobs', String(parallelJobs)] : []),
  ...mochaOptions,
  ...group,
];
if (parallel.length) {
  const parallelJobs = Math.min(jobs, parallel.length);
  await runMocha(`running ${parallel.length} test files, ${parallelJobs} at a time (mocha)`, mochaArgs(parallelJobs, parallel), {
    ...testEnv,
    RALLY_TEST_JOBS: String(parallelJobs),
  });
}
if (serial.length) {
  await runMocha(`running ${serial.length} test files that need the machine to themselves, one at a time (mocha)`, mochaArgs(1, serial), {
    ...testEnv,
    RALLY_TEST_JOBS: '1',
  });
}
await finish(0);
