// Brings up what the benchmarks run against, for one topology ('dev-server' today): the bench's own PostgreSQL with `rally_bench` migrated, a Temporal dev
// server in memory (unless TEMPORAL_ADDRESS is set), and the real API process on a free port. Every process started is registered with the meter and with the
// caller's cleanup stack, so it is stopped even when start-up fails halfway or the run is interrupted.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import type { Config } from '../../platform/config.ts';
import { runMigrations } from '../../db/migrate.ts';
import { describeExit, spawnPrefixed, stopChild } from '../lib/child-process.ts';
import { nodeArguments } from '../lib/topology-processes.ts';
import { ensureDatabaseExists, redactDatabaseUrl, startEmbeddedPostgres } from '../lib/embedded-postgres.ts';
import { resolveTemporalCli } from '../lib/temporal-cli.ts';
import { startTemporalDevServer } from '../lib/temporal-dev-server.ts';
import { loadTemporalSettings, registerSearchAttributes } from '../lib/temporal-settings.ts';
import { createCleanup, type Cleanup } from './cleanup.ts';
import { startClusterTopology } from './cluster-topology.ts';
import type { LoadSettings } from './load.ts';
import { createMeter, type Meter } from './meter.ts';
import type { BenchEnvironment, Topology } from './scenario.ts';
import { freePort } from '../lib/free-port.ts';
export { freePort };

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const BENCH_DATABASE = 'rally_bench';
const BENCH_POSTGRES_DIR = path.join(REPOSITORY_ROOT, '.data', 'bench-postgres');
// pg_stat_statements counts statements run inside functions and triggers too ('all'), so the cost of
// what a signature sets off shows beside the statement that set it off. max_connections is raised
// because the cluster topology puts Temporal's pools, PgBouncer's and the raw-pg reference's 50
// connections on this one server (100, the default, ran out: "too many clients already").
const BENCH_POSTGRES_SETTINGS = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.max': '10000',
  max_connections: '300',
};
const API_READY_TIMEOUT_MS = 60_000;
const API_STOP_GRACE_MS = 15_000;
// Effectively no rate limit: one client hammering one route is the point here, not abuse.
const UNLIMITED = '1000000000';

const UNLIMITED_ENV = {
  RALLY_RATE_LIMIT_RPS: UNLIMITED,
  RALLY_RATE_LIMIT_BURST: UNLIMITED,
  // Most scenarios' load comes from one client address, the signing rows' from 10,000 (address-load.ts),
  // and every minted signer has an address at one email domain (`rally loadtest users`): the default
  // thresholds flag it (issue 44), as they would a crowd; only the hard ceilings, off here, refuse.
  RALLY_SIGN_CEILING_PER_BLOCK_PER_HOUR: '0',
  RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR: '0',
};

type Log = (line: string) => void;

/**
 * The bench's own server (or BENCH_DATABASE_URL's), the migrated rally_bench database on it, and pg_stat_statements where the server loads it.
 * The bench's PostgreSQL is embedded, its data kept in .data/bench-postgres so data seeded by one run serves
 * the next, pg_stat_statements preloaded; BENCH_DATABASE_URL names another server instead.
 */
async function prepareDatabase(env: NodeJS.ProcessEnv, cleanup: Cleanup, log: Log): Promise<{ databaseUrl: string; postgresPid: number | undefined }> {
  let serverUrl = env.BENCH_DATABASE_URL;
  let postgresPid: number | undefined;
  if (!serverUrl) {
    const server = await startEmbeddedPostgres({ dataDir: BENCH_POSTGRES_DIR, port: await freePort(), settings: BENCH_POSTGRES_SETTINGS, log });
    cleanup.add('postgres', server.stop);
    serverUrl = server.databaseUrl;
    postgresPid = server.pid;
  } else log('using BENCH_DATABASE_URL (PostgreSQL CPU is counted only for a server the bench starts)');
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DATABASE}`;
  const databaseUrl = url.href;
  if (await ensureDatabaseExists(databaseUrl)) log(`created database ${BENCH_DATABASE}`);
  log(`using database ${redactDatabaseUrl(databaseUrl)}`);
  await runMigrations(databaseUrl, log);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => log('pg_stat_statements is not available on this server'));
  // Each run mints its tokens anew, so the signing keys of earlier runs serve nothing; a database from before
  // BENCH_ENCRYPTION_KEY holds keys sealed with the development key, which the API would refuse to start on.
  await client.query('DELETE FROM identity_signing_keys; DELETE FROM oauth_signing_keys');
  await client.end();
  return { databaseUrl, postgresPid };
}

type TemporalTarget = { address: string; namespace: string; taskQueue: string };

async function prepareTemporal(config: Config, env: NodeJS.ProcessEnv, cleanup: Cleanup, meter: Meter, log: Log): Promise<TemporalTarget> {
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
  meter.register('temporal', server.pid);
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

/** Node flags for a process under test: with profiling on, an inspector on a free loopback port that the meter profiles through. */
async function nodeArgsFor(meter: Meter): Promise<{ args: string[]; inspectPort?: number }> {
  if (!meter.profiling) return { args: [] };
  const inspectPort = await freePort();
  return { args: [`--inspect=127.0.0.1:${inspectPort}`], inspectPort };
}

async function startApi(serviceEnv: NodeJS.ProcessEnv, apiUrl: string, cleanup: Cleanup, meter: Meter, log: Log, name = 'api'): Promise<number | undefined> {
  const node = await nodeArgsFor(meter);
  const api = spawnPrefixed({ name, command: process.execPath, args: [...node.args, ...nodeArguments('api')], cwd: REPOSITORY_ROOT, env: serviceEnv });
  meter.register('api', api.process.pid, node.inspectPort, name);
  cleanup.add('api', async () => {
    meter.unregister(api.process.pid);
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

/**
 * The key every process of the bench seals and opens secrets with (webhook signing secrets, the OAuth
 * server's signing keys), the bench's own rather than the public development key: the processes the
 * signing rows run in production mode refuse that one, and must open what the others sealed.
 */
export const BENCH_ENCRYPTION_KEY = createHash('sha256').update('rally bench: not a production key').digest('hex');

/**
 * Everything the scenarios run against, for one topology: the one place that decides how PostgreSQL,
 * Temporal and the API are started (a further topology, e.g. a cluster, is a further branch here).
 */
export async function startBenchEnvironment(
  options: Readonly<{
    config: Config;
    env: NodeJS.ProcessEnv;
    load: LoadSettings;
    topology: Topology;
    profileDir: string | null;
    cleanup: Cleanup;
    log: Log;
  }>,
): Promise<BenchEnvironment> {
  const { config, env, cleanup, log, topology } = options;
  const { databaseUrl, postgresPid } = await prepareDatabase(env, cleanup, log);
  const meter = await createMeter({ databaseUrl, profileDir: options.profileDir });
  cleanup.add('meter', meter.close);
  meter.register('postgres', postgresPid);
  if (topology === 'cluster') {
    // `npm run cluster`'s processes (cluster-topology.ts), each metered on its own: the meter splits the cluster's tree by command line.
    const { pid, ...cluster } = await startClusterTopology({
      databaseUrl,
      serviceEnv: { ...env, ...UNLIMITED_ENV, RALLY_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY },
      cleanup,
      log,
    });
    meter.register('cluster', pid);
    return { ...cluster, databaseUrl, load: { ...options.load, meter }, meter, topology, nodeArgs: () => nodeArgsFor(meter), log };
  }
  const temporal = await prepareTemporal(config, env, cleanup, meter, log);
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
    RALLY_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
    ...UNLIMITED_ENV,
  };
  await startApi(serviceEnv, apiUrl, cleanup, meter, log);
  return {
    apiUrl,
    databaseUrl,
    temporalAddress: temporal.address,
    serviceEnv,
    load: { ...options.load, meter },
    meter,
    topology,
    nodeArgs: () => nodeArgsFor(meter),
    log,
  };
}

/** `pid` lets a scenario read the process's memory (/proc/<pid>/status). */
export type ExtraApi = Readonly<{ url: string; pid: number | undefined; serviceEnv: Readonly<NodeJS.ProcessEnv>; stop(): Promise<void> }>;

/** The bench environment's rate limits lifted (UNLIMITED_ENV): an API given these keys as undefined runs with production's. */
export const PRODUCTION_RATE_LIMITS: NodeJS.ProcessEnv = {
  RALLY_RATE_LIMIT_RPS: undefined,
  RALLY_RATE_LIMIT_BURST: undefined,
  RALLY_SIGN_LIMIT_PER_HOUR: undefined,
};

/**
 * A further API process beside the main one, on a free port, with the main one's environment plus
 * `extraEnv` (for scenarios that compare configurations, e.g. the rate limiter off; a key given as
 * undefined is removed). The caller stops it; a crash of the bench still takes it down with the other children.
 */
export async function startExtraApi(environment: BenchEnvironment, extraEnv: NodeJS.ProcessEnv, name = 'api-extra'): Promise<ExtraApi> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const merged: NodeJS.ProcessEnv = { ...environment.serviceEnv, PORT: String(port), PUBLIC_URL: url, ...extraEnv };
  const serviceEnv = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
  const cleanup = createCleanup(environment.log);
  let pid: number | undefined;
  try {
    pid = await startApi(serviceEnv, url, cleanup, environment.meter, environment.log, name);
  } catch (error) {
    await cleanup.runAll();
    throw error;
  }
  return { url, pid, serviceEnv, stop: () => cleanup.runAll() };
}
