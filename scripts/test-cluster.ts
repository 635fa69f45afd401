// `npm run test:cluster`: the tests that matter most in production run against `npm run cluster`'s
// topology: the real Temporal server on PostgreSQL (each run in a namespace of its own) and the
// API and worker processes pooling through PgBouncer in transaction mode, LISTEN going direct.
// Starts the cluster, runs `npm test` on the files below with the switches test/support/environment.ts
// reads, and stops the cluster (Ctrl-C) whatever the outcome.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { spawnPrefixed, stopChild } from './lib/child-process.ts';
import { freePort } from './lib/free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const READY_LINE = 'Press Ctrl-C to stop.';
const READY_TIMEOUT_MS = 30 * 60_000; // the first run builds the server (minutes)
const FILES = [
  'test/replicas.test.ts',
  'test/workflows/petition-lifecycle.test.ts',
  'test/workflows/webhook-delivery.test.ts',
  'test/workflows/api-key-rotation.test.ts',
  'test/workflows/media-processing.test.ts',
  'test/workflows/moderation.test.ts',
  'test/db/pooler.test.ts',
];
const say = (line: string) => process.stdout.write(`[test:cluster] ${line}\n`);

const cluster = spawnPrefixed({
  name: 'cluster',
  command: process.execPath,
  args: ['scripts/cluster.ts'],
  cwd: ROOT,
  env: { ...process.env, PORT: String(await freePort()) },
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
    env: { ...process.env, RALLY_SKIP_CHECKS: '1', RALLY_TEST_TEMPORAL_ADDRESS: '127.0.0.1:7333', RALLY_TEST_PGBOUNCER_PORT: '6433' },
  });
  status = await new Promise<number>((resolve) => tests.once('exit', (code) => resolve(code ?? 1)));
}
cluster.process.kill('SIGINT');
await stopChild(cluster, 60_000);
process.exit(status);
