// PgBouncer in front of PostgreSQL for Rally's processes, as production runs it, in transaction mode; the decision is repeated in docs/operations/replicas.md,
// the runbook and compose.yaml. Temporal does not go through it: its driver prepares statements.
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:net';
import { spawnPrefixed, stopChild, type PrefixedChild } from './child-process.ts';

// pool_mode = transaction: Rally keeps no session state on pooled connections (no SET, no temporary tables, no
// named prepared statements: the API's processes get RALLY_DB_PREPARED_STATEMENTS=false here, so its few named
// hot statements go unnamed too, which transaction pooling passes through on every PgBouncer version, Debian
// 12's 1.18 included). LISTEN needs a session, so each process's one notification connection goes straight to
// PostgreSQL through DATABASE_LISTEN_URL, and so do migrations (a session advisory lock).
export const PGBOUNCER_POOL_MODE = 'transaction';
// Slonik sends statement_timeout and idle_in_transaction_session_timeout as startup parameters, which PgBouncer
// refuses: they are ignored there and set on every server connection by connect_query instead (with Rally's
// defaults, 30 s and 60 s).
const STATEMENT_TIMEOUT_MS = 30_000; // db/pool.ts's default
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000; // Slonik's default
/** Server connections per database and user pair (docs/operations/runbook.md, sizing). */
export const DEFAULT_POOL_SIZE = 20;

export type PgBouncerOptions = Readonly<{
  /** The PostgreSQL server behind it; its user and password are the ones Rally's processes use. */
  upstreamUrl: string;
  dataDir: string;
  port: number;
  /** Server connections per database and user: what PostgreSQL's max_connections must allow. */
  poolSize?: number;
  log: (line: string) => void;
}>;

export type PgBouncer = Readonly<{ port: number; child: PrefixedChild; stop(): Promise<void> }>;

/** The same database through PgBouncer: the value for Rally's DATABASE_URL. */
export function throughPgBouncer(databaseUrl: string, port: number): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

/** Where one PgBouncer listens and forwards to; the pooling settings themselves are the same everywhere. */
export type PgBouncerTarget = Readonly<{
  upstreamHost: string;
  upstreamPort: number;
  listenAddr: string;
  listenPort: number;
  authType: 'trust' | 'scram-sha-256';
  authFile: string;
  poolSize?: number;
}>;

/** compose.yaml's pooler: the `pgbouncer` service in front of the `postgres` one; its entrypoint writes the userlist. */
export const COMPOSE_PGBOUNCER: PgBouncerTarget = {
  upstreamHost: 'postgres',
  upstreamPort: 5432,
  listenAddr: '0.0.0.0',
  listenPort: 6432,
  authType: 'scram-sha-256',
  authFile: '/tmp/userlist.txt',
};

/** The pgbouncer.ini of `npm run cluster`, and (test/deployment.test.ts checks it) of compose.yaml's ops/pgbouncer/pgbouncer.ini. */
export function pgBouncerIni(target: PgBouncerTarget): string {
  return [
    '[databases]',
    // Every database of the upstream server, under its own name (tests make one per run).
    `* = host=${target.upstreamHost} port=${target.upstreamPort} connect_query='SET statement_timeout = ` +
      `${STATEMENT_TIMEOUT_MS}; SET idle_in_transaction_session_timeout = ` +
      `${IDLE_IN_TRANSACTION_TIMEOUT_MS}'`,
    '[pgbouncer]',
    `listen_addr = ${target.listenAddr}`,
    `listen_port = ${target.listenPort}`,
    `unix_socket_dir =`,
    // With a password it is checked (SCRAM) and reused towards PostgreSQL.
    `auth_type = ${target.authType}`,
    `auth_file = ${target.authFile}`,
    `pool_mode = ${PGBOUNCER_POOL_MODE}`,
    `default_pool_size = ${target.poolSize ?? DEFAULT_POOL_SIZE}`,
    'max_client_conn = 1000',
    // After PostgreSQL restarts, try logging in again within a second (the default waits 15 s, all answering 503).
    'server_login_retry = 1',
    'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout',
    'admin_users =',
    '',
  ].join('\n');
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export function pgBouncerVersion(): string | undefined {
  const result = spawnSync('pgbouncer', ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.split('\n')[0] : undefined;
}

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const version = pgBouncerVersion();
  if (!version) throw new Error('pgbouncer is not installed (Debian: apt-get install -y pgbouncer)');
  await mkdir(options.dataDir, { recursive: true });
  const upstream = new URL(options.upstreamUrl);
  const userlist = path.join(options.dataDir, 'userlist.txt');
  await writeFile(userlist, `"${decodeURIComponent(upstream.username)}" "${decodeURIComponent(upstream.password)}"\n`, { mode: 0o600 });
  const ini = path.join(options.dataDir, 'pgbouncer.ini');
  const password = decodeURIComponent(upstream.password);
  await writeFile(
    ini,
    pgBouncerIni({
      upstreamHost: upstream.hostname,
      upstreamPort: Number(upstream.port || 5432),
      listenAddr: '127.0.0.1', // loopback only
      listenPort: options.port,
      authType: password ? 'scram-sha-256' : 'trust',
      authFile: userlist,
      poolSize: options.poolSize,
    }),
  );
  // PgBouncer refuses to run as root; as root it switches to the postgres OS user, which must read its files.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const postgres = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const uid = Number(postgres.stdout.trim());
    for (const file of [options.dataDir, userlist, ini]) await chown(file, uid, uid);
    await chmod(options.dataDir, 0o700);
  }
  options.log(`starting ${version} on 127.0.0.1:${options.port} (pool_mode ${PGBOUNCER_POOL_MODE}) in front of ${upstream.hostname}:${upstream.port || 5432}`);
  const child = spawnPrefixed({ name: 'pgbouncer', command: 'pgbouncer', args: [...(asRoot ? ['-u', 'postgres'] : []), ini] });
  const deadline = Date.now() + 10_000;
  while (!(await portAnswers(options.port))) {
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await stopChild(child, 1_000);
      throw new Error(`pgbouncer did not start on port ${options.port}`);
    }
    await sleep(100);
  }
  return {
    port: options.port,
    child,
    async stop() {
      await stopChild(child, 5_000);
    },
  };
}
