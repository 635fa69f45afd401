// Runs `temporal server start-dev` as a child process and waits until its frontend answers, so
// that the worker and API never race a half-started server.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { describeExit, spawnPrefixed, stopChild } from './child-process.ts';
import { freePort } from './free-port.ts';
import type { ChildExit, PrefixedChild } from './child-process.ts';
import type { SearchAttributeType } from './temporal-settings.ts';

export type TemporalDevServerOptions = Readonly<{
  cliPath: string;
  /** SQLite file that keeps workflows across restarts; without it the server starts empty each time. */
  dbFile?: string;
  /** Bound address of the frontend and the UI; loopback unless said otherwise. */
  ip?: string;
  port: number;
  uiPort: number;
  namespace: string;
  searchAttributes: Readonly<Record<string, SearchAttributeType>>;
  log: (line: string) => void;
  /** How long to wait for the frontend to answer. */
  readyTimeoutMs?: number;
  /** Drops the server's own output (tests that strain it on purpose, where its warnings are expected). */
  quiet?: boolean;
  /** Without the Web UI (the test suite's server: nobody looks at it). */
  headless?: boolean;
}>;

export type TemporalDevServer = Readonly<{
  /** host:port of the gRPC frontend, the value for TEMPORAL_ADDRESS. */
  address: string;
  uiUrl: string;
  pid: number | undefined;
  /** Settles when the server process ends, whether stopped or crashed, saying how. */
  exited: Promise<ChildExit>;
  stop(): Promise<void>;
  /** SIGKILL, as a crash or the OOM killer would: the SQLite file is left as it was at that instant. */
  kill(): Promise<void>;
}>;

const DEFAULT_NAMESPACE = 'default'; // always created by the dev server; naming it again is an error
const STOP_GRACE_MS = 10_000;

function devServerArgs(options: TemporalDevServerOptions, ip: string): string[] {
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(options.port), '--ui-port', String(options.uiPort)];
  if (options.headless) args.push('--headless');
  if (options.namespace !== DEFAULT_NAMESPACE) args.push('--namespace', options.namespace);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const [name, type] of Object.entries(options.searchAttributes)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  args.push('--log-level', 'warn');
  return args;
}

/** The server process ended before its frontend answered (a port taken meanwhile, a bad flag). */
export class DevServerExitedError extends Error {
  override name = 'DevServerExitedError';
}

/** Polls the frontend until GetSystemInfo succeeds; fails early if the server process exits. */
export async function waitForFrontend(address: string, server: PrefixedChild, timeoutMs: number): Promise<void> {
  let exit: string | undefined;
  void server.exited.then((info) => {
    exit = describeExit(info);
  });
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no answer';
  while (Date.now() < deadline) {
    if (exit) throw new DevServerExitedError(`the Temporal dev server exited during start-up (${exit})`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: '2s' });
      try {
        // A frontend that accepts connections before it can answer must not hold the wait past its deadline.
        await connection.withDeadline(Date.now() + 5_000, () => connection.workflowService.getSystemInfo({}));
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await sleep(500);
  }
  throw new Error(`the Temporal dev server did not answer on ${address} within ${timeoutMs / 1000} s (${lastError})`);
}

// A port picked free can be taken before the server binds it (its internal services pick more of their own), and then the
// server exits at once: a start that exits is tried again on new ports, a server that does not answer is not.
const FREE_PORT_STARTS = 3;

/** Starts the server on ports picked free now, again on new ones if it exits during start-up; its ports are in the result. */
export async function startTemporalDevServerOnFreePorts(
  options: Omit<TemporalDevServerOptions, 'port' | 'uiPort'>,
): Promise<TemporalDevServer & { port: number; uiPort: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const [port, uiPort] = await Promise.all([freePort(), freePort()]);
    try {
      return { ...(await startTemporalDevServer({ ...options, port, uiPort })), port, uiPort };
    } catch (error) {
      if (!(error instanceof DevServerExitedError) || attempt === FREE_PORT_STARTS) throw error;
    }
  }
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const address = `${ip}:${options.port}`;
  const uiUrl = `http://${ip}:${options.uiPort}`;
  if (options.dbFile) mkdirSync(path.dirname(path.resolve(options.dbFile)), { recursive: true });
  options.log(`starting the Temporal dev server on ${address}` + (options.dbFile ? ` (state in ${options.dbFile})` : ' (in memory)') + '…');
  const server = spawnPrefixed({ name: 'temporal', command: options.cliPath, args: devServerArgs(options, ip) });
  if (options.quiet) server.silence();
  const stop = async (): Promise<void> => {
    // While stopping, its internal clients log a screenful of "connection refused" warnings.
    server.silence();
    const exit = await stopChild(server, STOP_GRACE_MS);
    options.log(`Temporal dev server stopped (${describeExit(exit)})`);
  };
  try {
    await waitForFrontend(address, server, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  options.log(`Temporal dev server ready on ${address}; Web UI at ${uiUrl}`);
  const kill = async (): Promise<void> => {
    server.silence();
    server.process.kill('SIGKILL');
    options.log(`Temporal dev server killed (${describeExit(await server.exited)})`);
  };
  return { address, uiUrl, pid: server.process.pid, exited: server.exited, stop, kill };
}
