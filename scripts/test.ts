// `npm test`: type-checks and lints, then runs the whole mocha suite against real services: the
// PostgreSQL at DATABASE_URL (each run makes and drops its own database) and a Temporal dev server
// started from the real CLI. Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '../api/config.ts';
import { resolveTemporalCli } from './lib/temporal-cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;
const say = (line: string) => process.stdout.write(`[test] ${line}\n`);

function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  say(label);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) {
    say(`${label}: failed`);
    process.exit(result.status ?? 1);
  }
}

const config = loadConfigOrExit();
const databaseUrl = config.databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
if (!config.databaseUrl) say(`DATABASE_URL is not set; using the local server at ${databaseUrl}`);

const cliPath = await resolveTemporalCli(say);

run('type-checking (tsc --noEmit)', `${BIN}tsc`, ['--noEmit', '-p', '.']);
run('linting (eslint)', `${BIN}eslint`, ['--config', 'scripts/eslint.config.js', '.']);
run(
  'running the test suite (mocha)',
  process.execPath,
  [`${BIN}mocha`, '--require', 'test/setup.ts', '--extension', 'ts', '--recursive', '--timeout', '60000', '--exit', ...process.argv.slice(2), 'test'],
  { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, RALLY_TEMPORAL_CLI: cliPath },
);
