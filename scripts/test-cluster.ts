// `npm run test:cluster`: the tests that matter most in production run against `npm run cluster`'s
// topology: the real Temporal server on PostgreSQL (each run in a namespace of its own) and the
// API and worker processes pooling through PgBouncer in transaction mode, LISTEN going direct.
// Everything runs on a PostgreSQL of this run's own (lib/private-postgres.ts), because the crash test
// restarts it with `pg_ctl restart -m fast` and kills the cluster's Temporal server, which the
// cluster's supervisor restarts. Starts the cluster, runs `npm test` on the files below with the
// switches test/support/environment.ts and test/support/cluster-control.ts read, and stops the
// cluster (Ctrl-C) and that PostgreSQL whatever the outcome.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnPrefixed, stopChild } from './lib/child-process.ts';
import { clusterPaths, PGBOUNCER_PORT, TEMPORAL_FRONTEND_ADDRESS } from './lib/cluster-layout.ts';
import { freePort } from './lib/free-port.ts';
import { startPrivatePostgres } from './lib/private-postgres.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const READY_LINE = 'Press Ctrl-C to stop.';
const READY_TIMEOUT_MS = 30 * 60_000; // the first run builds the server (minutes)
// The crash test comes last: it restarts PostgreSQL and the Temporal server under everything else.
const FILES = [
  'test/replicas.test.ts',
  'test/rolling-restart.test.ts',
  'test/workflows/petition-lifecycle.test.ts',
  'test/workflows/webhook-delivery.test.ts',
  'test/workflows/api-key-rotation.test.ts',
  'test/workflows/media-processing.test.ts',
  'test/workflows/moderation.test.ts',
  'test/db/pooler.test.ts',
  'test/workflows/crash-under-load.test.ts',
];
const say = (line: string) => process.stdout.write(`[test:cluster] ${line}\n`);

const postgres = await startPrivatePostgres(await freePort(), say);
// Readable by the postgres OS user, which PgBouncer runs as when this runs as root.
const dataDir = await mkdtemp(path.join(tmpdir(), 'rally-test-cluster-'));
await chmod(dataDir, 0o755);
const clusterDatabase = new URL(postgres.url);
clusterDatabase.pathname = '/rally';

const cluster = spawnPrefixed({
  name: 'cluster',
  command: process.execPath,
  args: ['scripts/cluster.ts'],
  cwd: ROOT,
  env: { ...process.env, PORT: String(await freePort()), DATABASE_URL: clusterDatabase.href, RALLY_DATA_DIR: dataDir },
});
const ready = await new Promise<boolean>((resolve) => {
  const timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  cluster.process.stdout?.on('data', (chunk: Buffer) => {
    if (String(chunk).includes(READY_LINE)) {
      clearTimeout(timer);
      resolve(true);
    }
  });
  void cluster.exited.then(() => {
    clearTimeout(timer);
    resolve(false);
  });
});
// Once up, its chatter would bury the test output; its own failures still end the run.
cluster.silence();
let status = 1;
if (!ready) say('the cluster did not come up');
else {
  say(`running ${FILES.length} test files against the cluster`);
  const tests = spawn(process.execPath, ['scripts/test.ts', ...FILES, ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      RALLY_SKIP_CHECKS: '1',
      DATABASE_URL: postgres.url,
      RALLY_TEST_TEMPORAL_ADDRESS: TEMPORAL_FRONTEND_ADDRESS,
      RALLY_TEST_PGBOUNCER_PORT: String(PGBOUNCER_PORT),
      RALLY_TEST_TEMPORAL_PID_FILE: clusterPaths(dataDir).temporalPidFile,
      RALLY_TEST_POSTGRES_DATA_DIR: postgres.dataDir,
    },
  });
  status = await new Promise<number>((resolve) => tests.once('exit', (code) => resolve(code ?? 1)));
}
cluster.process.kill('SIGINT');
await stopChild(cluster, 60_000);
await postgres.stop().catch((error: Error) => say(`could not stop PostgreSQL: ${error.message}`));
await rm(dataDir, { recursive: true, force: true });
process.exit(status);
