// The real services every test uses, started once per run: a fresh PostgreSQL database (unique
// name, migrated, dropped at the end), a Temporal dev server from the real CLI, and the workflow
// bundle, built once and shared by every test worker.
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import pg from 'pg';
import type { DatabasePool } from 'slonik';
import { loadConfig } from '../../platform/config.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { runMigrations } from '../../db/migrate.ts';
import { ALL_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.ts';
import { bundleWorkflows } from '../../worker/create-worker.ts';
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

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export function testEnvironment(): TestEnvironment {
  if (!current) throw new Error('the test environment is not started: run the tests with `npm test` (mocha --require test/setup.ts)');
  return current;
}

export async function startTestEnvironment(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env);
  const cliPath = env.RALLY_TEMPORAL_CLI;
  if (!config.databaseUrl) throw new Error('DATABASE_URL must point at a PostgreSQL server (npm test sets it)');
  if (!cliPath) throw new Error('RALLY_TEMPORAL_CLI must name the Temporal CLI (npm test sets it)');

  maintenanceUrl = withDatabase(config.databaseUrl, 'postgres');
  databaseName = `rally_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: maintenanceUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  await admin.end();
  const databaseUrl = withDatabase(config.databaseUrl, databaseName);
  await runMigrations(databaseUrl);

  const temporal = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cliPath },
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
