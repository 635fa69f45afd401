// When `npm start` restarts a crashed part, and when it stops trying: each crash waits longer before the restart (1 s, 2 s, 4 s… up to 30 s), counted over the
// last minute only, so a part that crashed once an hour ago restarts at once; a part that crashes `maxCrashes` times within `windowMs` is broken, not unlucky,
// and the supervisor gives up on the whole installation.

export type RestartPolicyOptions = Readonly<{
  maxCrashes?: number;
  windowMs?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
  now?: () => number;
}>;

export type RestartDecision = Readonly<{ giveUp: boolean; delayMs: number; recentCrashes: number }>;

export const DEFAULT_MAX_CRASHES = 5;
export const DEFAULT_CRASH_WINDOW_MS = 60_000;

export function createRestartPolicy(options: RestartPolicyOptions = {}): { crashed(): RestartDecision } {
  const maxCrashes = options.maxCrashes ?? DEFAULT_MAX_CRASHES;
  const windowMs = options.windowMs ?? DEFAULT_CRASH_WINDOW_MS;
  const initialDelayMs = options.initialDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const now = options.now ?? Date.now;
  let crashes: number[] = [];
  return {
    crashed() {
      const at = now();
      crashes = [...crashes.filter((time) => at - time < windowMs), at];
      const recentCrashes = crashes.length;
      return {
        giveUp: recentCrashes >= maxCrashes,
        delayMs: Math.min(maxDelayMs, initialDelayMs * 2 ** (recentCrashes - 1)),
        recentCrashes,
      };
    },
  };
}
