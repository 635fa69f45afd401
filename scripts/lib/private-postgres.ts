// A PostgreSQL server of one's own from the machine's binaries (Debian's /usr/lib/postgresql/<version>/bin, or pg_ctl on PATH), for `npm run test:cluster`,
// whose crash test restarts PostgreSQL (`pg_ctl restart -m fast`) and must not touch the server other test runs use. Fresh data directory per run, loopback
// only, trust authentication (only this machine's processes can reach it), no Unix socket.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export type PrivatePostgres = Readonly<{
  /** The `postgres` maintenance database; callers name their own database in the path. */
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}>;

function binDir(): string {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const newest = readdirSync(debian)
      .filter((version) => existsSync(path.join(debian, version, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (newest) return path.join(debian, newest, 'bin');
  }
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  if (!onPath) throw new Error('no PostgreSQL server binaries here (Debian: apt-get install -y postgresql)');
  return path.dirname(onPath);
}

// PostgreSQL refuses to run as root: as root every pg_ctl step runs as the `postgres` OS user, which owns the
// data directory.
const asRoot = (): boolean => userInfo().uid === 0;

/** Runs a PostgreSQL program, as the postgres OS user when this process is root (without blocking, so load can go on meanwhile). */
async function runTool(tool: string, args: string[]): Promise<void> {
  const program = path.join(binDir(), tool);
  const [command, commandArgs] = asRoot() ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  await promisify(execFile)(command, commandArgs, { cwd: tmpdir(), timeout: 120_000 }).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`${tool} ${args.join(' ')} failed: ${error.stderr || error.message}`);
  });
}

/** `pg_ctl restart -m fast`: sessions are ended, the server shuts down cleanly and starts again with the same options. */
export async function restartPostgres(dataDir: string): Promise<void> {
  await runTool('pg_ctl', ['restart', '-D', dataDir, '-m', 'fast', '-w', '-t', '60', '-l', `${dataDir}/server.log`]);
}

export async function startPrivatePostgres(port: number, log: (line: string) => void): Promise<PrivatePostgres> {
  const parent = await mkdtemp(path.join(tmpdir(), 'rally-private-postgres-'));
  const dataDir = path.join(parent, 'data');
  if (asRoot()) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    await chown(parent, uid, uid);
  }
  await runTool('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories='' -c max_connections=300`;
  await runTool('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', `${dataDir}/server.log`, '-o', options]);
  log(`started a private PostgreSQL on 127.0.0.1:${port} (data in ${dataDir})`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    async stop() {
      try {
        await runTool('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']);
      } finally {
        await rm(parent, { recursive: true, force: true });
      }
    },
  };
}
