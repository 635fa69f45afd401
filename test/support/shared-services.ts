// What a test run starts once, in mocha's main process, for every test process it then forks: a
// migrated template database, a Temporal dev server with a namespace per test process, and the
// workflow bundle on disk. Each test process clones and uses its own share (environment.ts).
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { loadConfig } from '../../platform/config.ts';
import { runMigrations } from '../../db/migrate.ts';
import { bundleWorkflows } from '../../worker/create-worker.ts';
import { ensureNamespace, loadTemporalSettings, registerSearchAttributes } from '../../scripts/lib/temporal-settings.ts';
import { startTemporalDevServerOnFreePorts, type TemporalDevServer } from '../../scripts/lib/temporal-dev-server.ts';

/** What each test process reads from its environment to find the run's shared services. */
export const SHARED = {
  runId: 'RALLY_TEST_RUN_ID',
  templateDatabase: 'RALLY_TEST_TEMPLATE_DATABASE',
  temporalAddress: 'RALLY_TEST_SHARED_TEMPORAL_ADDRESS',
  namespaces: 'RALLY_TEST_NAMESPACES',
  bundleFile: 'RALLY_TEST_WORKFLOW_BUNDLE',
  runDir: 'RALLY_TEST_RUN_DIR',
} as const;

const NAMESPACE_RETENTION_MS = 86_400_000;
const ROOT = path.resolve(import.meta.dirname, '../..');

let devServer: TemporalDevServer | undefined;
let maintenanceUrl: string | undefined;
let runId: string | undefined;

export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function onMaintenanceDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** One namespace per test process (RALLY_TEST_JOBS of them), registered with Rally's search attributes. */
async function prepareNamespaces(address: string, names: string[]): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const attributes = loadTemporalSettings().searchAttributes;
    for (const namespace of names) {
      await ensureNamespace(connection, namespace, NAMESPACE_RETENTION_MS);
      await registerSearchAttributes(connection, namespace, attributes);
    }
  } finally {
    await connection.close();
  }
}

export async function startSharedServices(env: NodeJS.ProcessEnv, jobs: number): Promise<void> {
  const config = loadConfig(env);
  if (!config.databaseUrl) throw new Error('DATABASE_URL must point at a PostgreSQL server (npm test sets it)');
  const cliPath = env.RALLY_TEMPORAL_CLI;
  if (!cliPath && !env.RALLY_TEST_TEMPORAL_ADDRESS) throw new Error('RALLY_TEMPORAL_CLI must name the Temporal CLI (npm test sets it)');

  runId = `rally_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  maintenanceUrl = withDatabase(config.databaseUrl, 'postgres');
  const template = `${runId}_template`;
  await onMaintenanceDatabase((admin) => admin.query(`CREATE DATABASE ${template}`));
  const bundle = bundleWorkflows();
  await runMigrations(withDatabase(config.databaseUrl, template));

  // `npm run test:cluster` names its own Temporal server; `npm test` starts a dev server here. Started
  // by our own launcher, which waits up to a minute for it to answer: the testing package's waits 5 s,
  // which a machine busy with the tree checks starting beside it can outlast.
  devServer = env.RALLY_TEST_TEMPORAL_ADDRESS
    ? undefined
    : await startTemporalDevServerOnFreePorts({
        cliPath: cliPath!,
        headless: true,
        quiet: true,
        namespace: 'default',
        searchAttributes: loadTemporalSettings().searchAttributes,
        log: () => undefined,
      });
  const address = env.RALLY_TEST_TEMPORAL_ADDRESS ?? devServer!.address;
  const namespaces = Array.from({ length: jobs }, (_, index) => `${runId}_${index}`);
  await prepareNamespaces(address, namespaces);

  const runDir = path.join(ROOT, '.data', 'test-runs', runId);
  await mkdir(runDir, { recursive: true });
  const bundleFile = path.join(runDir, 'workflow-bundle.js');
  await writeFile(bundleFile, (await bundle).code);

  // Test processes are forked after this, so they inherit these.
  Object.assign(process.env, {
    [SHARED.runId]: runId,
    [SHARED.templateDatabase]: template,
    [SHARED.temporalAddress]: address,
    [SHARED.namespaces]: namespaces.join(','),
    [SHARED.bundleFile]: bundleFile,
    [SHARED.runDir]: runDir,
  });
}

/** Drops every database of this run (the template and each test process's clone) and its files. */
export async function stopSharedServices(): Promise<void> {
  await devServer?.stop();
  devServer = undefined;
  if (!runId || !maintenanceUrl) return;
  const pattern = `${runId}\\_%`;
  await onMaintenanceDatabase(async (admin) => {
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [pattern]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  });
  await rm(path.join(ROOT, '.data', 'test-runs', runId), { recursive: true, force: true });
}
