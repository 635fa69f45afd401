// `npm run test:cluster`: the tests that matter most in production, against `npm run cluster`'s topology (real Temporal on PostgreSQL, a namespace per run; API
// and workers pooling through PgBouncer, LISTEN direct), on a PostgreSQL of this run's own (lib/private-postgres.ts), since the crash test restarts it. Runs
// `npm test` on the files below, then stops the cluster and that PostgreSQL whatever the outcome.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnPrefixed, stopChild } from './lib/child-process.ts';
import { serverStates } from './lib/haproxy.ts';
import { clusterPaths, waitForClusterReady, HAPROXY_STATS_PORT, PGBOUNCER_PORT, TEMPORAL_FRONTEND_ADDRESS, TEMPORAL_UI_PORT } from './lib/cluster-layout.ts';
import { freePort } from './lib/free-port.ts';
import { startPrivatePostgres } from './lib/private-postgres.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
// The crash test restarts PostgreSQL with `pg_ctl restart -m fast` and kills the cluster's Temporal server,
// which the cluster's supervisor restarts. These files run with the switches test/support/environment.ts and
// test/support/cluster-control.ts read.
// The crash test comes last: it restarts PostgreSQL and the Temporal server under everything else.
// The rolling restart (test/rolling-restart.test.ts, HAProxy as `npm run cluster` runs it in front of two
// APIs) runs in `npm test`; here it would add two minutes for nothing the cluster changes.
const FILES = [
  'test/replicas.test.ts',
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

const port = await freePort();
const cluster = spawnPrefixed({
  name: 'cluster',
  command: process.execPath,
  args: ['scripts/cluster.ts'],
  cwd: ROOT,
  env: { ...process.env, PORT: String(port), DATABASE_URL: clusterDatabase.href, RALLY_DATA_DIR: dataDir },
});
const ready = await waitForClusterReady(cluster);
// Once up, its chatter would bury the test output; its own failures still end the run.
cluster.silence();
/**
 * The cluster's Web UI lists the namespace through the frontend: it is served and talks to the server.
 * Before the tests: the cluster's Web UI answers and lists the namespaces, which it reads from the Temporal
 * server, and HAProxy on PORT has both APIs up and answers through them.
 */
async function webUiAnswers(): Promise<boolean> {
  const url = `http://127.0.0.1:${TEMPORAL_UI_PORT}/api/v1/namespaces`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) }).catch((error: Error) => error);
  const body = response instanceof Response ? await response.text() : '';
  const answers = response instanceof Response && response.status === 200 && body.includes('"default"');
  say(
    answers
      ? `the Web UI lists the namespaces (${url})`
      : `the Web UI does not answer at ${url}: ${response instanceof Error ? response.message : `${response.status} ${body.slice(0, 200)}`}`,
  );
  return answers;
}

/** HAProxy on PORT has both APIs up (within 30 s: their first readiness checks) and passes a request through. */
async function frontDoorAnswers(): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const states = await serverStates(`http://127.0.0.1:${HAPROXY_STATS_PORT}/`).catch((error: Error) => ({ error: error.message }));
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(10_000) }).catch((error: Error) => error);
    const answers = JSON.stringify(states) === JSON.stringify({ 'api-1': 'UP', 'api-2': 'UP' }) && response instanceof Response && response.status === 200;
    if (answers || Date.now() > deadline) {
      say(`HAProxy on port ${port}: servers ${JSON.stringify(states)}, GET /health/ready ${response instanceof Response ? response.status : response.message}`);
      return answers;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

let status = 1;
if (!ready) say('the cluster did not come up');
else if (!(await webUiAnswers()) || !(await frontDoorAnswers())) status = 1;
else {
  // `npm run test:cluster -- test/x.test.ts` runs only the files named; other arguments go to mocha.
  const args = process.argv.slice(2);
  const files = args.some((arg) => arg.endsWith('.ts')) ? [] : FILES;
  say(`running ${files.length || 'the named'} test files against the cluster`);
  const tests = spawn(process.execPath, ['scripts/test.ts', ...files, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      RALLY_SKIP_CHECKS: '1',
      // One test process: the cluster's own processes already take both cores.
      RALLY_TEST_JOBS: '1',
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
