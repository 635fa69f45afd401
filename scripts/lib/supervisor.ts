// Keeps the parts of `npm start` running: a part that exits on its own is restarted after the restart policy's backoff (restart-policy.ts), with a log line
// each time; a part that keeps crashing makes the supervisor give up, and the caller then stops everything. Stopping a part on purpose (Ctrl-C) never counts as
// a crash.
import { setTimeout as sleep } from 'node:timers/promises';
import { createRestartPolicy, type RestartPolicyOptions } from './restart-policy.ts';

/** One running instance of a part: its process id, how it ended, and how to stop it politely. */
export type PartInstance = Readonly<{ pid: number | undefined; exited: Promise<string>; stop(): Promise<void> }>;

export type SupervisedPart = Readonly<{ name: string; stop(): Promise<void> }>;

export type Supervisor = {
  /** Starts the part (a failure here is a start-up failure, thrown) and keeps it running from then on. */
  start(name: string, launch: () => Promise<PartInstance>): Promise<SupervisedPart>;
};

export function createSupervisor(
  options: Readonly<{
    log: (line: string) => void;
    /** Called once when a part crashed too often; the caller stops everything. */
    giveUp: (name: string) => void;
    policy?: RestartPolicyOptions;
  }>,
): Supervisor {
  const { log } = options;
  return {
    async start(name, launch) {
      const policy = createRestartPolicy(options.policy);
      let stopped = false;
      let current = await launch();
      log(`started ${name} (pid ${current.pid ?? '?'})`);

      async function keepRunning(): Promise<void> {
        for (;;) {
          const how = await current.exited;
          if (stopped) return;
          const decision = policy.crashed();
          if (decision.giveUp) {
            log(`${name} exited unexpectedly (${how}), ${decision.recentCrashes} times within a minute; giving up`);
            options.giveUp(name);
            return;
          }
          log(`${name} exited unexpectedly (${how}); restarting it in ${decision.delayMs / 1000} s (crash ${decision.recentCrashes} within the last minute)`);
          await sleep(decision.delayMs);
          if (stopped) return;
          try {
            current = await launch();
            log(`restarted ${name} (pid ${current.pid ?? '?'})`);
          } catch (error) {
            // A restart that fails counts as another crash of the part.
            const message = error instanceof Error ? error.message : String(error);
            current = { pid: undefined, exited: Promise.resolve(`restart failed: ${message}`), stop: async () => {} };
          }
        }
      }
      void keepRunning();
      return {
        name,
        async stop() {
          stopped = true;
          await current.stop();
        },
      };
    },
  };
}
