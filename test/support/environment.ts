// The services one test process uses: its own database, cloned from the run's migrated template, its
// own Temporal namespace on the run's one server, its own data folder and identity provider. Mocha's
// main process starts what they share (shared-services.ts); this runs once in each test process.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import pg from 'pg';
import type { DatabasePool } from 'slonik';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../platform/config.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { throughPgBouncer } from '../../scripts/lib/pgbouncer.ts';
import { SHARED, withDatabase } from './shared-services.ts';
import { freePort, startIdentityProvider, stopEveryProcess } from './processes.ts';

export type TestEnvironment = {
  databaseUrl: string;
  db: DatabasePool;
  temporal: TestWorkflowEnvironment;
  identityProviderPort: number;
  workflowBundle(): Promise<{ codePath: string }>;
};

let current: TestEnvironment | undefined;
let starting: Promise<void> | undefined;
let pgBouncerPort: number | undefined;

/** DATABASE_URL and DATABASE_LISTEN_URL for the Rally processes a test starts. */
export function processDatabaseEnv(): Record<string, string> {
  const { databaseUrl } = testEnvironment();
  if (pgBouncerPort === undefined) return { DATABASE_URL: databaseUrl };
  return { DATABASE_URL: throughPgBouncer(databaseUrl, pgBouncerPort), DATABASE_LISTEN_URL: databaseUrl, RALLY_DB_PREPARED_STATEMENTS: 'false' };
}

export function testEnvironment(): TestEnvironment {
  if (!current) throw new Error('the test environment is not started: run the tests with `npm test` (mocha --require test/setup.ts)');
  return current;
}

function sharedValue(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: the run's shared services did not start (run the tests with \`npm test\`)`);
  return value;
}

/** Mocha numbers the processes it forks from 0; the main process (no --parallel) is process 0. */
function processIndex(env: NodeJS.ProcessEnv): number {
  return Number(env.MOCHA_WORKER_ID ?? 0);
}

/** Runs `work` on the server's maintenance database. */
async function onServer<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  return work(admin).finally(() => admin.end());
}

/** A new database `name` cloned from the run's migrated template; its URL. */
async function cloneTemplate(env: NodeJS.ProcessEnv, serverUrl: string, name: string): Promise<string> {
  await onServer(serverUrl, (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${sharedValue(env, SHARED.templateDatabase)}`));
  return withDatabase(serverUrl, name);
}

async function start(env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env);
  pgBouncerPort = env.RALLY_TEST_PGBOUNCER_PORT ? Number(env.RALLY_TEST_PGBOUNCER_PORT) : undefined;
  const index = processIndex(env);
  const namespaces = sharedValue(env, SHARED.namespaces).split(',');
  const databaseUrl = await cloneTemplate(env, config.databaseUrl!, `${sharedValue(env, SHARED.runId)}_${index}`);

  // The processes a test starts write media and mail under RALLY_DATA_DIR: one folder per test process.
  const dataDir = path.join(sharedValue(env, SHARED.runDir), `process-${index}`);
  await mkdir(dataDir, { recursive: true });
  const bundleFile = sharedValue(env, SHARED.bundleFile);
  Object.assign(process.env, { RALLY_DATA_DIR: dataDir, RALLY_WORKFLOW_BUNDLE: bundleFile });

  current = {
    databaseUrl,
    db: await createDatabasePool(databaseUrl, { maximumPoolSize: 10 }),
    temporal: await TestWorkflowEnvironment.createFromExistingServer({
      address: sharedValue(env, SHARED.temporalAddress),
      // A restarted test process takes a namespace again; its earlier life has ended.
      namespace: namespaces[index % namespaces.length]!,
    }),
    identityProviderPort: await freePort(),
    workflowBundle: async () => ({ codePath: bundleFile }),
  };
  await startIdentityProvider();
}

let freshDatabases = 0;

/**
 * Runs `work` on a database of its own, cloned from the run's migrated template and dropped after: for
 * tests whose statements sweep whole tables (a migration's backfill), which on the process's shared
 * database would also sweep, and wait on, every earlier test file's rows.
 */
export async function withFreshDatabase(work: (db: DatabasePool) => Promise<void>): Promise<void> {
  const env = process.env;
  const serverUrl = testEnvironment().databaseUrl;
  const name = `${sharedValue(env, SHARED.runId)}_${processIndex(env)}_fresh_${(freshDatabases += 1)}`;
  try {
    const db = await createDatabasePool(await cloneTemplate(env, serverUrl, name), { maximumPoolSize: 2 });
    await work(db).finally(() => db.end());
  } finally {
    await onServer(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
}

/** Idempotent: mocha runs root hooks before every file in a parallel run, once in a serial one. */
export function startTestEnvironment(env: NodeJS.ProcessEnv): Promise<void> {
  starting ??= start(env);
  return starting;
}

/** Stops what this process started; its database goes with the run (shared-services.ts). */
export async function stopTestEnvironment(): Promise<void> {
  await stopEveryProcess();
  if (current) {
    await current.db.end();
    await current.temporal.teardown();
    current = undefined;
  }
  starting = undefined;
}
