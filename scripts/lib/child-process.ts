// Child processes for `npm start` and the test runner: every output line is prefixed with the
// child's name (`[api] …`) so interleaved logs stay readable, and children are stopped politely
// (SIGTERM, a grace period, then SIGKILL).
import { spawn } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export type ChildExit = Readonly<{ code: number | null; signal: NodeJS.Signals | null }>;

export type PrefixedChild = Readonly<{
  name: string;
  process: ChildProcess;
  /** Settles once the process has exited and its output has been written out. */
  exited: Promise<ChildExit>;
  /** Drops further output: for children whose shutdown chatter is known noise. */
  silence(): void;
}>;

export type PrefixedSpawnOptions = Readonly<{
  /** Shown as `[name] ` in front of each line. */
  name: string;
  command: string;
  args?: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Adds a Node IPC channel (only for children that are Node processes). */
  ipc?: boolean;
}>;

function pipeWithPrefix(source: Readable | null, prefix: string, target: Writable, muted: () => boolean): Promise<void> {
  if (!source) return Promise.resolve();
  const lines = createInterface({ input: source, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (!muted()) target.write(`${prefix}${line}\n`);
  });
  return new Promise((resolve) => lines.once('close', () => resolve()));
}

// Every child still running. When this process exits without having stopped them (a crash, or a
// Ctrl-C during start-up), they get a SIGTERM: being in their own process groups, nothing else would
// tell them.
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGTERM');
});

/**
 * Spawns a child whose stdout and stderr lines are prefixed. The child gets its own process group
 * (`detached`), so a Ctrl-C in the terminal reaches only the supervisor, which then stops children
 * in a deliberate order instead of all at once.
 */
export function spawnPrefixed(options: PrefixedSpawnOptions): PrefixedChild {
  const stdio: StdioOptions = options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'];
  const child = spawn(options.command, options.args ?? [], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio,
    detached: process.platform !== 'win32',
  });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  const prefix = `[${options.name}] `;
  let muted = false;
  const isMuted = (): boolean => muted;
  const outputDone = Promise.all([
    pipeWithPrefix(child.stdout, prefix, process.stdout, isMuted),
    pipeWithPrefix(child.stderr, prefix, process.stderr, isMuted),
  ]);
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`${prefix}could not start ${options.command}: ${error.message}\n`);
      resolve({ code: 127, signal: null });
    });
    child.once('exit', (code, signal) => {
      void outputDone.then(() => resolve({ code, signal }));
    });
  });
  return {
    name: options.name,
    process: child,
    exited,
    silence: () => {
      muted = true;
    },
  };
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Sends SIGTERM and waits for the exit; sends SIGKILL when the child is still there after
 * `graceMs`. Resolves with how the child ended. Safe to call more than once.
 */
export async function stopChild(child: PrefixedChild, graceMs = 10_000): Promise<ChildExit> {
  if (hasExited(child.process) || child.process.pid === undefined) return child.exited;
  child.process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killLater = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      if (!hasExited(child.process)) {
        process.stderr.write(`[${child.name}] still running after ${graceMs / 1000} s; killing it\n`);
        child.process.kill('SIGKILL');
      }
      resolve();
    }, graceMs);
  });
  await Promise.race([child.exited, killLater]);
  clearTimeout(timer);
  return child.exited;
}

/** Describes an exit for log lines: "exit code 1" or "signal SIGKILL". */
export function describeExit(exit: ChildExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
}
