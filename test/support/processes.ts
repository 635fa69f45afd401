// Real API and worker processes for integration tests: the tests talk to them over HTTP exactly as
// clients do. Each gets the test database, the test Temporal server and its own task queue.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { processDatabaseEnv, testEnvironment } from './environment.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
export { freePort };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every test process shares one public origin, which is also the audience of access tokens. */
export const PUBLIC_URL = 'http://rally.test';

export type RallyProcess = { child: ChildProcess; output: () => string; stop(signal?: NodeJS.Signals): Promise<void> };
export type RunningApi = RallyProcess & { baseUrl: string };

/** `onOutput` sees everything the process writes (the kept `output()` is only its last 20,000 characters). */
export type SpawnOptions = { onOutput?: (chunk: string) => void };

// Every process a test starts, so that none outlives its test process: a test that fails before its
// own `stop()` would otherwise leave an API or worker running against a dropped database.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

// What each running process logged lately, for the report of a failed test (test/setup.ts).
const recentOutput = new Map<ChildProcess, { entry: string; output: () => string }>();
const FAILURE_REPORT_CHARS = 8_000;

/** The last lines each process still running logged: printed when a test fails, so a flake leaves its evidence. */
export function outputOfRunningProcesses(): string {
  return [...recentOutput]
    .map(([child, { entry, output }]) => `--- ${entry} (pid ${child.pid}), its last output ---\n${output().slice(-FAILURE_REPORT_CHARS)}`)
    .join('\n');
}

/** Stops whatever this test process started and has not stopped yet. */
export async function stopEveryProcess(): Promise<void> {
  await Promise.all(
    [...running].map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      return exited;
    }),
  );
}

function spawnRally(entry: string, env: Record<string, string>, options: SpawnOptions = {}): RallyProcess {
  const { temporal, identityProviderPort } = testEnvironment();
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ...processDatabaseEnv(),
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace ?? 'default',
      PUBLIC_URL,
      RALLY_IDP_PORT: String(identityProviderPort),
      // Every test signs from 127.0.0.1 with an address at example.test; the signing throttle has tests of its own.
      RALLY_SIGN_LIMIT_PER_HOUR: '1000000',
      RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: '1000000',
      RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  recentOutput.set(child, { entry, output: () => output });
  child.once('exit', () => {
    running.delete(child);
    recentOutput.delete(child);
  });
  const collect = (chunk: Buffer) => {
    options.onOutput?.(chunk.toString());
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      // RALLY_TEST_SHOW_OUTPUT=1 prints what the process logged, for debugging a failing test.
      if (process.env.RALLY_TEST_SHOW_OUTPUT === '1') process.stderr.write(`--- ${entry} output ---\n${output}\n`);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** An API process on a free port, or on `env.PORT` (a restart after a kill keeps its address). */
export async function startApi(env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<RunningApi> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const api = spawnRally('api/main.ts', { ...env, PORT: String(port) }, options);
  // Generous: on a machine shared by many test runs, loading the TypeScript alone can take 30 s.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (api.child.exitCode !== null) throw new Error(`the API exited during start-up (exit code ${api.child.exitCode}):\n${api.output()}`);
    const alive = await fetch(`${baseUrl}/health`).then(
      () => true,
      () => false,
    );
    if (alive) return { ...api, baseUrl };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await api.stop('SIGKILL');
  throw new Error(`the API did not start within 90 s:\n${api.output()}`);
}

/** A worker process; resolves once it polls its task queue. */
export async function startWorker(env: Record<string, string> = {}, options: SpawnOptions = {}): Promise<RallyProcess> {
  const worker = spawnRally('worker/main.ts', env, options);
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (worker.child.exitCode !== null) throw new Error(`the worker exited during start-up (exit code ${worker.child.exitCode}):\n${worker.output()}`);
    if (worker.output().includes('"polling"')) return worker;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await worker.stop('SIGKILL');
  throw new Error(`the worker did not start within 120 s:\n${worker.output()}`);
}

/** The embedded identity provider, as npm start runs it; one per test run. */
export async function startIdentityProvider(): Promise<RallyProcess> {
  const provider = spawnRally('identity-provider/main.ts', {});
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (provider.child.exitCode !== null) {
      throw new Error(`the identity provider exited during start-up (exit code ${provider.child.exitCode}):\n${provider.output()}`);
    }
    if (provider.output().includes('"message":"listening"')) return provider;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await provider.stop('SIGKILL');
  throw new Error(`the identity provider did not start within 90 s:\n${provider.output()}`);
}

/** Runs `rally <args>` (bin/rally.js) against the test database and identity provider. */
export function runRallyCli(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  const { databaseUrl, identityProviderPort } = testEnvironment();
  return promisify(execFile)(process.execPath, ['bin/rally.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: databaseUrl, RALLY_IDP_PORT: String(identityProviderPort), PUBLIC_URL, ...env },
    // `loadtest users` prints a token per line: thousands of them are megabytes.
    maxBuffer: 64 * 1024 * 1024,
  });
}
