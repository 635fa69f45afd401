// The real services every test uses, started once per run: a fresh PostgreSQL database (unique
// name, migrated, dropped at the end), a Temporal dev server from the real CLI, and the workflow
// bundle, built once and shared by every test worker.
import { randomBytes } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import pg from 'pg';
import type { DatabasePool } from 'slonik';
import { loadConfig } from '../../platform/config.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { runMigrations } from '../../db/migrate.ts';
import { ALL_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';
import { bundleWorkflows } from '../../worker/create-worker.ts';
import { throughPgBouncer } from '../../scripts/lib/pgbouncer.ts';
import { ensureNamespace, loadTemporalSettings, registerSearchAttributes } from '../../scripts/lib/temporal-settings.ts';
import { freePort, startIdentityProvider, type RallyProcess } from './processes.ts';

export type TestEnvironment = {
  databaseUrl: string;
  db: DatabasePool;
  temporal: TestWorkflowEnvironment;
  identityProviderPort: number;
  workflowBundle(): Promise<WorkflowBundleWithSourceMap>;
};

let current: TestEnvironment | undefined;
let identityProvider: RallyProcess | undefined;
let databaseName: string | undefined;
let maintenanceUrl: string | undefined;
let pgBouncerPort: number | undefined;
const NAMESPACE_RETENTION_MS = 86_400_000;

/** DATABASE_URL and DATABASE_LISTEN_URL for the Rally processes a test starts. */
export function processDatabaseEnv(): Record<string, string> {
  const { databaseUrl } = testEnvironment();
  if (pgBouncerPort === undefined) return { DATABASE_URL: databaseUrl };
  return { DATABASE_URL: throughPgBouncer(databaseUrl, pgBouncerPort), DATABASE_LISTEN_URL: databaseUrl, RALLY_DB_PREPARED_STATEMENTS: 'false' };
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export function testEnvironment(): TestEnvironment {
  if (!current) throw new Error('the test environment is not started: run the tests with `npm test` (mocha --require test/setup.ts)');
  return current;
}

/**
 * `npm run test:cluster`: a real Temporal server (RALLY_TEST_TEMPORAL_ADDRESS), in a namespace of this
 * run's own, registered with Rally's search attributes, so runs never see each other's workflows.
 */
async function onExistingServer(address: string, namespace: string): Promise<TestWorkflowEnvironment> {
  const connection = await Connection.connect({ address });
  try {
    await ensureNamespace(connection, namespace, NAMESPACE_RETENTION_MS);
    await registerSearchAttributes(connection, namespace, loadTemporalSettings().searchAttributes);
  } finally {
    await connection.close();
  }
  return TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
}

export async function startTestEnvironment(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env);
  const cliPath = env.RALLY_TEMPORAL_CLI;
  // Through PgBouncer (test:cluster): the API and worker processes pool through it and LISTEN directly.
  pgBouncerPort = env.RALLY_TEST_PGBOUNCER_PORT ? Number(env.RALLY_TEST_PGBOUNCER_PORT) : undefined;
  if (!config.databaseUrl) throw new Error('DATABASE_URL must point at a PostgreSQL server (npm test sets it)');
  if (!cliPath && !env.RALLY_TEST_TEMPORAL_ADDRESS) throw new Error('RALLY_TEMPORAL_CLI must name the Temporal CLI (npm test sets it)');

  maintenanceUrl = withDatabase(config.databaseUrl, 'postgres');
  databaseName = `rally_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const databaseUrl = withDatabase(config.databaseUrl, databaseName);
  await runMigrations(databaseUrl);

  const temporal = env.RALLY_TEST_TEMPORAL_ADDRESS
    ? await onExistingServer(env.RALLY_TEST_TEMPORAL_ADDRESS, databaseName)
    : await TestWorkflowEnvironment.createLocal({
        server: {
          executable: { type: 'existing-path', path: cliPath! },
          ip: '127.0.0.1',
          searchAttributes: ALL_SEARCH_ATTRIBUTES,
          extraArgs: ['--log-level', 'error'],
        },
      });
  let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
  current = {
    databaseUrl,
    db: await createDatabasePool(databaseUrl, { maximumPoolSize: 10 }),
    temporal,
    identityProviderPort: await freePort(),
    workflowBundle: () => (bundle ??= bundleWorkflows()),
  };
  identityProvider = await startIdentityProvider();
}

export async function stopTestEnvironment(): Promise<void> {
  await identityProvider?.stop();
  if (current) {
    await current.db.end();
    await current.temporal.teardown();
    current = undefined;
  }
  if (databaseName && maintenanceUrl) {
    const admin = new pg.Client({ connectionString: maintenanceUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  }
}
