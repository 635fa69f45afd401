// `npm start`: the whole service on one machine: PostgreSQL (DATABASE_URL, or embedded under .data/postgres) created and migrated, Temporal (TEMPORAL_ADDRESS,
// or a dev server whose state survives restarts), the identity provider (unless OIDC_ISSUER is set), the worker and the API. Ctrl-C stops them in reverse
// order: API first (it drains), worker, identity provider, Temporal, PostgreSQL.
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { embeddedIssuer, loadConfigOrExit } from '../platform/config.ts';
import type { Config } from '../platform/config.ts';
import { describeExit, spawnPrefixed, stopChild } from './lib/child-process.ts';
import { createParts, stopOnSignals } from './lib/topology-processes.ts';
import {
  DEFAULT_EMBEDDED_POSTGRES_PORT,
  EMBEDDED_DATABASE_NAME,
  ensureDatabaseExists,
  redactDatabaseUrl,
  startEmbeddedPostgres,
} from './lib/embedded-postgres.ts';
import { resolveTemporalCli } from './lib/temporal-cli.ts';
import { startTemporalDevServer } from './lib/temporal-dev-server.ts';
import { applyWorkflowRetention, loadTemporalSettings, registerSearchAttributes } from './lib/temporal-settings.ts';
import type { TemporalSettings } from './lib/temporal-settings.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..');
const API_STOP_GRACE_MS = 30_000; // in-flight requests finish first
const WORKER_STOP_GRACE_MS = 30_000; // running activities finish or are handed back

type Env = NodeJS.ProcessEnv;
type TemporalTarget = Readonly<{ address: string; namespace: string; taskQueue: string; uiUrl?: string }>;

const log = (line: string): void => {
  process.stdout.write(`rally: ${line}\n`);
};

const parts = createParts(log);
const { supervise, keepRunning } = parts;

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
  parts.add('migrate', async () => {
    await stopChild(migration);
  });
  const exit = await migration.exited;
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
    log(
      `warning: could not register search attributes (${(error as Error).message}); ` +
        'create them with `temporal operator search-attribute create` (see temporal.yaml)',
    );
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

// A part that crashes (worker, API, identity provider, Temporal dev server) is restarted with backoff
// (lib/supervisor.ts); only a part that crashes 5 times within a minute, or PostgreSQL, stops everything (exit
// 1).
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
  if (!config.identity.issuer) await parts.startServiceProcess('identity', serviceEnv, API_STOP_GRACE_MS);
  await parts.startServiceProcess('worker', serviceEnv, WORKER_STOP_GRACE_MS);
  await parts.startServiceProcess('api', serviceEnv, API_STOP_GRACE_MS);
  // A slow first start (a busy machine compiling and bundling) only delays the summary.
  while (!(await parts.waitForApi(config.port))) {
    if (parts.isStopping()) return;
    log(`the API has not answered on port ${config.port} for a minute; still waiting`);
  }
  printSummary(config, temporal, databaseUrl);
}

stopOnSignals(parts, log);

try {
  await main(process.env);
} catch (error) {
  if (!parts.isStopping()) {
    log(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    await parts.stopEverything(1);
  }
}
