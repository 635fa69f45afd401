// `npm start`: the whole service on one machine. Resolves PostgreSQL (DATABASE_URL, or an embedded
// server under .data/postgres), creates the database and migrates it, resolves Temporal
// (TEMPORAL_ADDRESS, or a dev server whose state survives restarts), then runs the identity provider
// (unless OIDC_ISSUER is set), the worker and the API. A part that crashes (worker, API, identity
// provider, Temporal dev server) is restarted with backoff (lib/supervisor.ts); only a part that crashes
// 5 times within a minute, or PostgreSQL, stops everything (exit 1). Ctrl-C stops them in reverse
// order: API first (it drains), worker, identity provider, Temporal, PostgreSQL.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { embeddedIssuer, loadConfigOrExit } from '../platform/config.ts';
import type { Config } from '../platform/config.ts';
import { describeExit, spawnPrefixed, stopChild } from './lib/child-process.ts';
import { createSupervisor, type PartInstance } from './lib/supervisor.ts';
import { DEFAULT_EMBEDDED_POSTGRES_PORT, EMBEDDED_DATABASE_NAME, ensureDatabaseExists, redactDatabaseUrl, startEmbeddedPostgres } from './lib/embedded-postgres.ts';
import { resolveTemporalCli } from './lib/temporal-cli.ts';
import { startTemporalDevServer } from './lib/temporal-dev-server.ts';
import { applyWorkflowRetention, loadTemporalSettings, registerSearchAttributes } from './lib/temporal-settings.ts';
import type { TemporalSettings } from './lib/temporal-settings.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..');
const API_STOP_GRACE_MS = 30_000; // in-flight requests finish first
const WORKER_STOP_GRACE_MS = 30_000; // running activities finish or are handed back
const API_READY_TIMEOUT_MS = 60_000;

type Env = NodeJS.ProcessEnv;
type Component = Readonly<{ name: string; stop: () => Promise<void> }>;
type TemporalTarget = Readonly<{ address: string; namespace: string; taskQueue: string; uiUrl?: string }>;

const log = (line: string): void => {
  process.stdout.write(`rally: ${line}\n`);
};

/** What is running, in start order; stopped in reverse. */
const components: Component[] = [];
let stopping = false;

async function stopEverything(exitCode: number): Promise<void> {
  if (stopping) return; // npm and the terminal may both deliver the same Ctrl-C
  stopping = true;
  for (const component of [...components].reverse()) {
    try {
      await component.stop();
    } catch (error) {
      log(`could not stop ${component.name}: ${(error as Error).message}`);
    }
  }
  process.exit(exitCode);
}

/** Registers a component that is not restarted (PostgreSQL): if it ends on its own, everything stops. */
function supervise(name: string, exited: Promise<unknown>, stop: () => Promise<void>): void {
  components.push({ name, stop });
  void exited.then(() => {
    if (stopping) return;
    log(`${name} stopped unexpectedly; stopping everything`);
    void stopEverything(1);
  });
}

const supervisor = createSupervisor({
  log,
  giveUp: () => { if (!stopping) void stopEverything(1); },
});

/** Starts a part that is restarted when it crashes; registered for the ordered stop. */
async function keepRunning(name: string, launch: () => Promise<PartInstance>): Promise<void> {
  components.push(await supervisor.start(name, launch));
}

async function resolveDatabase(config: Config): Promise<string> {
  if (config.databaseUrl) {
    log(`using DATABASE_URL ${redactDatabaseUrl(config.databaseUrl)}`);
    return config.databaseUrl;
  }
  const embedded = await startEmbeddedPostgres({
    dataDir: path.resolve(config.dataDir, 'postgres'),
    port: DEFAULT_EMBEDDED_POSTGRES_PORT,
    database: EMBEDDED_DATABASE_NAME,
    log,
  });
  supervise('postgres', embedded.exited, embedded.stop);
  return embedded.databaseUrl;
}

async function migrate(databaseUrl: string, env: Env): Promise<void> {
  const migration = spawnPrefixed({
    name: 'migrate',
    command: process.execPath,
    args: ['db/migrate-cli.ts'],
    cwd: REPOSITORY_ROOT,
    env: { ...env, DATABASE_URL: databaseUrl },
  });
  const component: Component = { name: 'migrate', stop: async () => { await stopChild(migration); } };
  components.push(component);
  const exit = await migration.exited;
  components.splice(components.indexOf(component), 1);
  if (exit.code !== 0) throw new Error(`database migrations failed (${describeExit(exit)})`);
}

/** An existing cluster only needs our search attributes; operators own everything else there. */
async function prepareExistingTemporal(address: string, namespace: string, settings: TemporalSettings): Promise<void> {
  log(`using TEMPORAL_ADDRESS ${address} (namespace ${namespace})`);
  const connection = await Connection.connect({ address });
  try {
    const added = await registerSearchAttributes(connection, namespace, settings.searchAttributes);
    if (added.length > 0) log(`registered search attributes: ${added.join(', ')}`);
  } catch (error) {
    log(`warning: could not register search attributes (${(error as Error).message}); ` +
      'create them with `temporal operator search-attribute create` (see temporal.yaml)');
  } finally {
    await connection.close();
  }
}

async function resolveTemporal(config: Config, settings: TemporalSettings, env: Env): Promise<TemporalTarget> {
  // Environment first, then temporal.yaml.
  const namespace = env.TEMPORAL_NAMESPACE ? config.temporal.namespace : settings.namespace;
  const taskQueue = env.RALLY_TASK_QUEUE ? config.temporal.taskQueue : settings.taskQueue;
  if (config.temporal.address) {
    await prepareExistingTemporal(config.temporal.address, namespace, settings);
    return { address: config.temporal.address, namespace, taskQueue };
  }
  const cliPath = await resolveTemporalCli(log, env);
  const overrides = config.temporalDevServer;
  let server: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  // Restarted on the same ports and state file, so the API and worker reconnect to the same server.
  await keepRunning('temporal', async () => {
    server = await startTemporalDevServer({
      cliPath,
      dbFile: path.resolve(REPOSITORY_ROOT, overrides.dbFile ?? settings.devServer.dbFile),
      ip: settings.devServer.ip,
      port: overrides.port ?? settings.devServer.port,
      uiPort: overrides.uiPort ?? settings.devServer.uiPort,
      namespace,
      searchAttributes: settings.searchAttributes,
      log,
    });
    return { pid: server.pid, exited: server.exited.then(describeExit), stop: server.stop };
  });
  if (!server) throw new Error('the Temporal dev server did not start');
  const connection = await Connection.connect({ address: server.address });
  try {
    await applyWorkflowRetention(connection, namespace, settings.workflowRetentionMs);
  } finally {
    await connection.close();
  }
  return { address: server.address, namespace, taskQueue, uiUrl: server.uiUrl };
}

const ENTRY_POINTS = { api: 'api/main.ts', worker: 'worker/main.ts', identity: 'identity-provider/main.ts' } as const;

function startServiceProcess(name: keyof typeof ENTRY_POINTS, env: Env, graceMs: number): Promise<void> {
  return keepRunning(name, async () => {
    const child = spawnPrefixed({ name, command: process.execPath, args: [ENTRY_POINTS[name]], cwd: REPOSITORY_ROOT, env });
    return { pid: child.process.pid, exited: child.exited.then(describeExit), async stop() { await stopChild(child, graceMs); } };
  });
}

/** Waits for GET /health to answer at all (a "degraded" answer still means the API is up). */
async function waitForApi(port: number): Promise<boolean> {
  const deadline = Date.now() + API_READY_TIMEOUT_MS;
  while (Date.now() < deadline && !stopping) {
    try {
      await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
      return true;
    } catch {
      await sleep(300);
    }
  }
  return false;
}

function printSummary(config: Config, temporal: TemporalTarget, databaseUrl: string): void {
  const lines = [
    '',
    `  API            ${config.publicUrl}  (port ${config.port})`,
    `  API reference  ${config.publicUrl}/docs`,
    `  Identity       ${config.identity.issuer ?? `embedded provider at ${embeddedIssuer(config)}`}`,
    `  Temporal       ${temporal.address}, namespace ${temporal.namespace}, task queue ${temporal.taskQueue}`,
    ...(temporal.uiUrl ? [`  Temporal UI    ${temporal.uiUrl}`] : []),
    `  Database       ${redactDatabaseUrl(databaseUrl)}`,
    '',
    '  Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(env: Env): Promise<void> {
  const config = loadConfigOrExit(env);
  const settings = loadTemporalSettings();
  const databaseUrl = await resolveDatabase(config);
  if (await ensureDatabaseExists(databaseUrl)) log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  await migrate(databaseUrl, env);
  const temporal = await resolveTemporal(config, settings, env);
  const serviceEnv: Env = {
    ...env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    RALLY_TASK_QUEUE: temporal.taskQueue,
  };
  // The embedded OpenID Connect provider, unless an external one is configured (OIDC_ISSUER).
  if (!config.identity.issuer) await startServiceProcess('identity', serviceEnv, API_STOP_GRACE_MS);
  await startServiceProcess('worker', serviceEnv, WORKER_STOP_GRACE_MS);
  await startServiceProcess('api', serviceEnv, API_STOP_GRACE_MS);
  if (await waitForApi(config.port)) printSummary(config, temporal, databaseUrl);
  else if (!stopping) log(`the API did not answer on port ${config.port} within ${API_READY_TIMEOUT_MS / 1000} s; still waiting`);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) log(`${signal} received; stopping…`);
    void stopEverything(0);
  });
}

try {
  await main(process.env);
} catch (error) {
  if (!stopping) {
    log(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    await stopEverything(1);
  }
}
