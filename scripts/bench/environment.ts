// Brings up what the benchmarks run against: the `rally_bench` database (created if missing and kept
// between runs, so data seeded by one run can serve the next), migrated; a Temporal dev server in
// memory on free ports (unless TEMPORAL_ADDRESS is set); and the real API process on a free port.
// Everything started is registered with the caller's cleanup stack, so it is stopped even when
// start-up fails halfway or the run is interrupted.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { Config } from '../../platform/config.ts';
import { runMigrations } from '../../db/migrate.ts';
import { describeExit, spawnPrefixed, stopChild } from '../lib/child-process.ts';
import { ensureDatabaseExists, redactDatabaseUrl } from '../lib/embedded-postgres.ts';
import { resolveTemporalCli } from '../lib/temporal-cli.ts';
import { startTemporalDevServer } from '../lib/temporal-dev-server.ts';
import { loadTemporalSettings, registerSearchAttributes } from '../lib/temporal-settings.ts';
import { startClusterTopology, type Topology } from './cluster-topology.ts';
import type { LoadSettings } from './load.ts';
import type { BenchEnvironment } from './scenario.ts';
import { freePort } from '../lib/free-port.ts';
export { freePort };

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const BENCH_DATABASE = 'rally_bench';
const API_READY_TIMEOUT_MS = 60_000;
const API_STOP_GRACE_MS = 15_000;
// Effectively no rate limit: one client hammering one route is the point here, not abuse.
const UNLIMITED = '1000000000';

const UNLIMITED_ENV = {
  RALLY_RATE_LIMIT_RPS: UNLIMITED,
  RALLY_RATE_LIMIT_BURST: UNLIMITED,
  // All load comes from one address and one email domain; the signing throttle still does its work.
  RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: UNLIMITED,
  RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: UNLIMITED,
};

type Log = (line: string) => void;

/**
 * Stops what was started, last first. A signal and the normal `finally` may both call runAll; they
 * share one pass, so nothing is stopped twice or out of order.
 */
export type Cleanup = Readonly<{ add(name: string, stop: () => Promise<void>): void; runAll(): Promise<void> }>;

export function createCleanup(log: Log): Cleanup {
  const steps: { name: string; stop: () => Promise<void> }[] = [];
  let pass: Promise<void> | undefined;
  const stopInReverse = async (): Promise<void> => {
    while (steps.length > 0) {
      const step = steps.pop()!;
      await step.stop().catch((error: unknown) => log(`could not stop ${step.name}: ${(error as Error).message}`));
    }
    pass = undefined; // anything added later gets its own pass
  };
  return {
    add: (name, stop) => steps.push({ name, stop }),
    runAll: () => (pass ??= stopInReverse()),
  };
}

async function prepareDatabase(config: Config, log: Log): Promise<string> {
  const url = new URL(config.databaseUrl ?? DEFAULT_SERVER_URL);
  url.pathname = `/${BENCH_DATABASE}`;
  const databaseUrl = url.href;
  if (await ensureDatabaseExists(databaseUrl)) log(`created database ${BENCH_DATABASE}`);
  log(`using database ${redactDatabaseUrl(databaseUrl)}`);
  await runMigrations(databaseUrl, log);
  return databaseUrl;
}

type TemporalTarget = { address: string; namespace: string; taskQueue: string };

async function prepareTemporal(config: Config, env: NodeJS.ProcessEnv, cleanup: Cleanup, log: Log): Promise<TemporalTarget> {
  const settings = loadTemporalSettings();
  const namespace = env.TEMPORAL_NAMESPACE ? config.temporal.namespace : settings.namespace;
  const taskQueue = env.RALLY_TASK_QUEUE ? config.temporal.taskQueue : settings.taskQueue;
  if (config.temporal.address) {
    log(`using TEMPORAL_ADDRESS ${config.temporal.address}`);
    const connection = await Connection.connect({ address: config.temporal.address });
    try {
      await registerSearchAttributes(connection, namespace, settings.searchAttributes);
    } finally {
      await connection.close();
    }
    return { address: config.temporal.address, namespace, taskQueue };
  }
  const server = await startTemporalDevServer({
    cliPath: await resolveTemporalCli(log, env),
    port: await freePort(),
    uiPort: await freePort(),
    namespace,
    searchAttributes: settings.searchAttributes,
    log,
  });
  cleanup.add('temporal', server.stop);
  return { address: server.address, namespace, taskQueue };
}

/** Waits for GET /health to answer; fails at once if the API exits first. */
async function waitForApi(apiUrl: string, exitedWith: () => string | undefined, log: Log): Promise<void> {
  const deadline = Date.now() + API_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const exit = exitedWith();
    if (exit) throw new Error(`the API exited during start-up (${exit})`);
    const response = await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    if (response) {
      const health = await response.text();
      if (response.status !== 200) log(`warning: /health answered ${response.status}: ${health}`);
      return;
    }
    await sleep(200);
  }
  throw new Error(`the API did not answer ${apiUrl}/health within ${API_READY_TIMEOUT_MS / 1000} s`);
}

/** BENCH_PROFILE=<dir>: the Node flags that make a process the bench starts write a V8 CPU profile there when it stops (open it in Chrome DevTools). */
export function profilingArgs(): string[] {
  return process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
}

async function startApi(serviceEnv: NodeJS.ProcessEnv, apiUrl: string, cleanup: Cleanup, log: Log, name = 'api'): Promise<number | undefined> {
  const api = spawnPrefixed({ name, command: process.execPath, args: [...profilingArgs(), 'api/main.ts'], cwd: REPOSITORY_ROOT, env: serviceEnv });
  cleanup.add('api', async () => {
    await stopChild(api, API_STOP_GRACE_MS);
  });
  let exit: string | undefined;
  void api.exited.then((info) => {
    exit = describeExit(info);
  });
  await waitForApi(apiUrl, () => exit, log);
  log(`API ready at ${apiUrl}`);
  return api.process.pid;
}

export async function startBenchEnvironment(
  options: Readonly<{ config: Config; env: NodeJS.ProcessEnv; load: LoadSettings; cleanup: Cleanup; log: Log; topology?: Topology }>,
): Promise<BenchEnvironment> {
  const { config, env, cleanup, log } = options;
  const databaseUrl = await prepareDatabase(config, log);
  if (options.topology === 'cluster') {
    const cluster = await startClusterTopology({ databaseUrl, serviceEnv: { ...env, ...UNLIMITED_ENV }, cleanup, log });
    return { ...cluster, databaseUrl, load: options.load, log };
  }
  const temporal = await prepareTemporal(config, env, cleanup, log);
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const serviceEnv: NodeJS.ProcessEnv = {
    ...env,
    NODE_ENV: 'development',
    PORT: String(port),
    PUBLIC_URL: apiUrl,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    RALLY_TASK_QUEUE: temporal.taskQueue,
    ...UNLIMITED_ENV,
  };
  await startApi(serviceEnv, apiUrl, cleanup, log);
  return { apiUrl, databaseUrl, temporalAddress: temporal.address, serviceEnv, load: options.load, log };
}

/** `pid` lets a scenario read the process's memory (/proc/<pid>/status). */
export type ExtraApi = Readonly<{ url: string; pid: number | undefined; serviceEnv: Readonly<NodeJS.ProcessEnv>; stop(): Promise<void> }>;

/**
 * A further API process beside the main one, on a free port, with the main one's environment plus
 * `extraEnv` (for scenarios that compare configurations, e.g. the rate limiter off). The caller stops
 * it; a crash of the bench still takes it down with the other children.
 */
export async function startExtraApi(environment: BenchEnvironment, extraEnv: NodeJS.ProcessEnv, name = 'api-extra'): Promise<ExtraApi> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serviceEnv: NodeJS.ProcessEnv = { ...environment.serviceEnv, PORT: String(port), PUBLIC_URL: url, ...extraEnv };
  const cleanup = createCleanup(environment.log);
  let pid: number | undefined;
  try {
    pid = await startApi(serviceEnv, url, cleanup, environment.log, name);
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
  return { url, pid, serviceEnv, stop: () => cleanup.runAll() };
}
