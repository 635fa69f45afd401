// `npm run cluster`: Rally's production topology on one machine, without Docker: the real Temporal server on PostgreSQL (lib/temporal-server.ts), PgBouncer in
// transaction mode (lib/pgbouncer.ts says why), the identity provider, two workers, and two APIs behind HAProxy on PORT (lib/haproxy.ts). A second run reuses
// the databases, schemas and namespace; Ctrl-C stops everything in reverse order.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { runMigrations } from '../db/migrate.ts';
import { loadConfigOrExit } from '../platform/config.ts';
import { describeExit, spawnPrefixed, stopChild } from './lib/child-process.ts';
import { ensureDatabaseExists, redactDatabaseUrl } from './lib/embedded-postgres.ts';
import {
  CLUSTER_READY_LINE,
  clusterPaths,
  HAPROXY_STATS_PORT,
  PGBOUNCER_PORT,
  TEMPORAL_CONFIG_DIR,
  TEMPORAL_CONFIG_ENV,
  TEMPORAL_FRONTEND_ADDRESS,
  TEMPORAL_PORTS,
  TEMPORAL_UI_PORT,
} from './lib/cluster-layout.ts';
import { freePort } from './lib/free-port.ts';
import { createParts, stopOnSignals } from './lib/topology-processes.ts';
import { startHaproxy } from './lib/haproxy.ts';
import { startPgBouncer, throughPgBouncer } from './lib/pgbouncer.ts';
import { waitForFrontend } from './lib/temporal-dev-server.ts';
import { resolveTemporalServer } from './lib/temporal-server.ts';
import { resolveTemporalUi } from './lib/temporal-ui.ts';
import { ensureNamespace, loadTemporalSettings, registerSearchAttributes } from './lib/temporal-settings.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/rally';
const GRACE_MS = 30_000;

const log = (line: string): void => {
  process.stdout.write(`rally: ${line}\n`);
};
const parts = createParts(log);

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Creates temporal/temporal_visibility when missing, then applies the schema tool's versions (both steps are no-ops when current).
 * PostgreSQL is the one of DATABASE_URL (default the local server on 127.0.0.1:5432, database `rally`); the
 * Temporal databases `temporal` and `temporal_visibility` are created beside Rally's.
 */
async function prepareTemporalDatabases(databaseUrl: string, sqlTool: string): Promise<void> {
  const url = new URL(databaseUrl);
  const connection = ['--ep', url.hostname, '-p', url.port || '5432', '-u', decodeURIComponent(url.username), '--pl', 'postgres12'];
  const env = { ...process.env, SQL_PASSWORD: decodeURIComponent(url.password) };
  for (const [database, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    if (await ensureDatabaseExists(withDatabase(databaseUrl, database))) log(`created database ${database}`);
    const versioned = await hasSchemaVersionTable(withDatabase(databaseUrl, database));
    const steps = [...(versioned ? [] : [['setup-schema', '-v', '0.0']]), ['update-schema', '--schema-name', `postgresql/v12/${schema}`]];
    for (const step of steps) {
      const result = spawnSync(sqlTool, [...connection, '--db', database, ...step], { env, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`temporal-sql-tool ${step[0]} on ${database} failed: ${result.stderr || result.stdout}`);
    }
    log(`database ${database}: schema ${versioned ? 'updated where needed' : 'set up'} (postgresql/v12/${schema})`);
  }
}

async function hasSchemaVersionTable(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query(`SELECT to_regclass('public.schema_version') IS NOT NULL AS present`);
    return result.rows[0].present === true;
  } finally {
    await client.end();
  }
}

/** The values ops/temporal/rally.yaml reads from the environment (compose.yaml gives the same names). */
function serverEnvironment(databaseUrl: string): NodeJS.ProcessEnv {
  const url = new URL(databaseUrl);
  return {
    ...process.env,
    ...Object.fromEntries(Object.entries(TEMPORAL_PORTS).map(([name, port]) => [name, String(port)])),
    BIND_IP: '127.0.0.1',
    POSTGRES_HOST: url.hostname,
    POSTGRES_PORT: url.port || '5432',
    POSTGRES_USER: decodeURIComponent(url.username),
    POSTGRES_PASSWORD: decodeURIComponent(url.password),
  };
}

async function startTemporalServer(server: string, databaseUrl: string, pidFile: string): Promise<void> {
  await mkdir(path.dirname(pidFile), { recursive: true });
  await parts.keepRunning('temporal-server', async () => {
    const child = spawnPrefixed({
      name: 'temporal-server',
      command: server,
      args: ['--root', ROOT, '--config', TEMPORAL_CONFIG_DIR, '--env', TEMPORAL_CONFIG_ENV, '--allow-no-auth', 'start'],
      env: serverEnvironment(databaseUrl),
    });
    // Where the crash test of `npm run test:cluster` finds the process to kill (the supervisor restarts it).
    await writeFile(pidFile, `${child.process.pid}\n`);
    await waitForFrontend(TEMPORAL_FRONTEND_ADDRESS, child, 120_000).catch(async (error: unknown) => {
      await stopChild(child);
      throw error;
    });
    return {
      pid: child.process.pid,
      exited: child.exited.then(describeExit),
      async stop() {
        child.silence();
        await stopChild(child, 15_000);
      },
    };
  });
}

/** The Web UI against the cluster's frontend; optional: where it cannot be had, the reason is printed and the rest runs. */
async function startTemporalUi(namespace: string): Promise<string | undefined> {
  const binary = await resolveTemporalUi(log).catch((error: Error) => {
    log(`no Web UI: ${error.message}`);
    return undefined;
  });
  if (!binary) return undefined;
  const env = { ...process.env, TEMPORAL_ADDRESS: TEMPORAL_FRONTEND_ADDRESS, TEMPORAL_UI_PORT: String(TEMPORAL_UI_PORT), TEMPORAL_NAMESPACE: namespace };
  await parts.keepRunning('temporal-ui', async () => {
    const child = spawnPrefixed({ name: 'temporal-ui', command: binary, args: ['--root', ROOT, '--config', TEMPORAL_CONFIG_DIR, '--env', 'ui', 'start'], env });
    return { pid: child.process.pid, exited: child.exited.then(describeExit), stop: async () => void (await stopChild(child, 5_000)) };
  });
  return `http://127.0.0.1:${TEMPORAL_UI_PORT}`;
}

/** HAProxy on PORT, restarted when it crashes: it holds no state, and the APIs behind it keep running. */
async function startLoadBalancer(dataDir: string, port: number, apiPorts: readonly number[]): Promise<void> {
  await parts.keepRunning('haproxy', async () => {
    const haproxy = await startHaproxy({
      dataDir,
      bind: `0.0.0.0:${port}`,
      apiAddresses: apiPorts.map((apiPort) => `127.0.0.1:${apiPort}`),
      statsBind: `127.0.0.1:${HAPROXY_STATS_PORT}`,
      log,
    });
    return { pid: haproxy.child.process.pid, exited: haproxy.child.exited.then(describeExit), stop: haproxy.stop };
  });
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const settings = loadTemporalSettings();
  const databaseUrl = config.databaseUrl ?? LOCAL_SERVER;
  const paths = clusterPaths(path.resolve(ROOT, config.dataDir));
  log(`PostgreSQL ${redactDatabaseUrl(databaseUrl)}`);
  if (await ensureDatabaseExists(databaseUrl)) log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  const applied = await runMigrations(databaseUrl); // direct: migrations hold a session advisory lock
  log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'migrations up to date');

  const tools = await resolveTemporalServer(log);
  await prepareTemporalDatabases(databaseUrl, tools.sqlTool);
  const address = TEMPORAL_FRONTEND_ADDRESS;
  log(`starting the Temporal server (frontend, history, matching, worker) on ${address}…`);
  await startTemporalServer(tools.server, databaseUrl, paths.temporalPidFile);
  const connection = await Connection.connect({ address });
  try {
    if (await ensureNamespace(connection, settings.namespace, settings.workflowRetentionMs)) log(`registered namespace ${settings.namespace}`);
    const added = await registerSearchAttributes(connection, settings.namespace, settings.searchAttributes);
    log(added.length ? `registered search attributes: ${added.join(', ')}` : 'search attributes already registered');
  } finally {
    await connection.close();
  }

  const ui = await startTemporalUi(settings.namespace);
  const bouncer = await startPgBouncer({ upstreamUrl: databaseUrl, dataDir: paths.pgbouncer, port: PGBOUNCER_PORT, log });
  parts.supervise('pgbouncer', bouncer.child.exited, bouncer.stop);
  const apiPorts = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    DATABASE_URL: throughPgBouncer(databaseUrl, PGBOUNCER_PORT),
    DATABASE_LISTEN_URL: databaseUrl,
    // Debian's PgBouncer (1.18) cannot carry named prepared statements in transaction mode.
    RALLY_DB_PREPARED_STATEMENTS: 'false',
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: settings.namespace,
    RALLY_TASK_QUEUE: settings.taskQueue,
    PUBLIC_URL: config.publicUrl,
    // Readiness answers 503 this long before an API closes, so HAProxy (two failed checks 250 ms apart) has moved on.
    RALLY_API_SHUTDOWN_DELAY: process.env.RALLY_API_SHUTDOWN_DELAY ?? '2s',
  };
  // HAProxy adds X-Forwarded-For; the APIs read the client's address from it (one trusted hop).
  const apiEnv = { ...env, RALLY_TRUST_PROXY: '1' };
  if (!config.identity.issuer) await parts.startServiceProcess('identity', env, GRACE_MS);
  for (const n of [1, 2]) await parts.startServiceProcess('worker', env, GRACE_MS, `worker-${n}`);
  for (const [index, port] of apiPorts.entries()) await parts.startServiceProcess('api', { ...apiEnv, PORT: String(port) }, GRACE_MS, `api-${index + 1}`);
  await startLoadBalancer(paths.haproxy, config.port, apiPorts);
  if (!(await parts.waitForApi(config.port))) throw new Error(`the APIs did not answer on port ${config.port}`);
  process.stdout.write(
    [
      '',
      `  API            ${config.publicUrl}  (port ${config.port}, HAProxy over APIs on ${apiPorts.join(' and ')})`,
      `  HAProxy stats  http://127.0.0.1:${HAPROXY_STATS_PORT}/  (CSV: /;csv)`,
      `  Workers        2, task queue ${settings.taskQueue}`,
      `  Temporal       ${address}, namespace ${settings.namespace} (PostgreSQL persistence; config ${TEMPORAL_CONFIG_DIR}/${TEMPORAL_CONFIG_ENV}.yaml)`,
      `  Web UI         ${ui ?? 'not available (see the lines above)'}`,
      `  PgBouncer      127.0.0.1:${PGBOUNCER_PORT}, pool_mode transaction (DATABASE_URL of the APIs and workers)`,
      `  Database       ${redactDatabaseUrl(databaseUrl)} (direct: LISTEN, migrations, Temporal)`,
      '',
      `  ${CLUSTER_READY_LINE}`,
      '',
    ].join('\n') + '\n',
  );
}

stopOnSignals(parts, log);
try {
  await main();
} catch (error) {
  if (!parts.isStopping()) {
    log(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    await parts.stopEverything(1);
  }
}
