// The running parts of a one-machine topology (`npm start`, `npm run cluster`): each is registered in start order and stopped in reverse on Ctrl-C; a part that
// crashes is restarted with backoff (supervisor.ts) and one that keeps crashing, or one that must not be restarted (a database), stops everything (exit 1).
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeExit, spawnPrefixed, stopChild } from './child-process.ts';
import { createSupervisor, type PartInstance } from './supervisor.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
const API_READY_TIMEOUT_MS = 60_000;

export const ENTRY_POINTS = { api: 'api/main.ts', worker: 'worker/main.ts', identity: 'identity-provider/main.ts' } as const;

/**
 * V8's heap sizes per process, sized by measurement (docs/performance.md, "The API's memory"): left to itself, V8 holds several times
 * the API's live heap after a signing spike. Deployments (Dockerfile, compose.yaml, deploy/kubernetes/) start each process with these.
 */
export const NODE_FLAGS: Readonly<Record<keyof typeof ENTRY_POINTS, readonly string[]>> = {
  api: ['--max-semi-space-size=8', '--max-old-space-size=256'],
  worker: ['--max-semi-space-size=8', '--max-old-space-size=256'],
  identity: [],
};

/** What follows `node` to start a part as production does: its V8 flags, then its entry point. */
export const nodeArguments = (entry: keyof typeof ENTRY_POINTS): string[] => [...NODE_FLAGS[entry], ENTRY_POINTS[entry]];

type Component = Readonly<{ name: string; stop: () => Promise<void> }>;

export type Parts = Readonly<{
  isStopping: () => boolean;
  stopEverything(exitCode: number): Promise<void>;
  /** A part that is not restarted: if it ends on its own, everything stops. */
  supervise(name: string, exited: Promise<unknown>, stop: () => Promise<void>): void;
  /** A part restarted when it crashes. */
  keepRunning(name: string, launch: () => Promise<PartInstance>): Promise<void>;
  /** Something stopped with the rest but not watched (a proxy, a one-off step). */
  add(name: string, stop: () => Promise<void>): void;
  /** An API, worker or identity provider process (named `label` in logs, e.g. api-2). */
  startServiceProcess(entry: keyof typeof ENTRY_POINTS, env: NodeJS.ProcessEnv, graceMs: number, label?: string): Promise<void>;
  /** Waits up to a minute for GET /health to answer at all (a "degraded" answer still means the API is up). */
  waitForApi(port: number): Promise<boolean>;
}>;

export function createParts(log: (line: string) => void): Parts {
  const components: Component[] = [];
  let stopping = false;

  async function stopEverything(exitCode: number): Promise<void> {
    if (stopping) return; // npm and the terminal may both deliver the same Ctrl-C
    stopping = true;
    for (const component of [...components].reverse()) {
      try {
        await component.stop();
      } catch (error) {
        log(`could not stop ${component.name}: ${(error as Error).message}`);
      }
    }
    process.exit(exitCode);
  }

  const supervisor = createSupervisor({
    log,
    giveUp: () => {
      if (!stopping) void stopEverything(1);
    },
  });

  async function keepRunning(name: string, launch: () => Promise<PartInstance>): Promise<void> {
    components.push(await supervisor.start(name, launch));
  }

  return {
    isStopping: () => stopping,
    stopEverything,
    supervise(name, exited, stop) {
      components.push({ name, stop });
      void exited.then(() => {
        if (stopping) return;
        log(`${name} stopped unexpectedly; stopping everything`);
        void stopEverything(1);
      });
    },
    keepRunning,
    add(name, stop) {
      components.push({ name, stop });
    },
    startServiceProcess(entry, env, graceMs, label = entry) {
      return keepRunning(label, async () => {
        const child = spawnPrefixed({ name: label, command: process.execPath, args: nodeArguments(entry), cwd: REPOSITORY_ROOT, env });
        return {
          pid: child.process.pid,
          exited: child.exited.then(describeExit),
          async stop() {
            await stopChild(child, graceMs);
          },
        };
      });
    },
    async waitForApi(port) {
      const deadline = Date.now() + API_READY_TIMEOUT_MS;
      while (Date.now() < deadline && !stopping) {
        try {
          await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
          return true;
        } catch {
          await sleep(300);
        }
      }
      return false;
    },
  };
}

/** Ctrl-C, a TERM from a supervisor or a closed terminal stops every part in reverse order. */
export function stopOnSignals(parts: Parts, log: (line: string) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!parts.isStopping()) log(`${signal} received; stopping…`);
      void parts.stopEverything(0);
    });
  }
}
