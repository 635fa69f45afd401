// What GET /health and /health/ready report about PostgreSQL and Temporal, without checking them on every request: a load balancer probing many times a second
// would otherwise turn each probe into two round trips. The last answer is reused for up to `maxAgeMs` (1 s), then the next probe runs a fresh check shared by
// every probe that arrives meanwhile.

export type Reachability = 'ok' | 'unreachable';
export type DependencyName = 'database' | 'temporal';
export type DependencyChecks = Record<DependencyName, Reachability>;
export type DependencySnapshot = Readonly<{ checks: DependencyChecks; checkedAt: number }>;

export type DependencyStatusOptions = {
  checks: Record<DependencyName, () => Promise<unknown>>;
  maxAgeMs?: number;
  timeoutMs?: number;
  now?: () => number;
};

export type DependencyStatus = { current(): Promise<DependencySnapshot> };

export const DEFAULT_MAX_AGE_MS = 1_000;
// A check that does not answer within `timeoutMs` counts as unreachable, so an outage shows as 503 at most
// maxAgeMs + timeoutMs (< 2 s) after it begins, even when the dependency hangs instead of refusing connections.
export const DEFAULT_TIMEOUT_MS = 900;

async function reachable(check: () => Promise<unknown>, timeoutMs: number): Promise<Reachability> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

export function createDependencyStatus(options: DependencyStatusOptions): DependencyStatus {
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  let last: DependencySnapshot | undefined;
  let inFlight: Promise<DependencySnapshot> | undefined;

  async function check(): Promise<DependencySnapshot> {
    // The age counts from when the check started: an answer describes the dependency as it was then.
    const startedAt = now();
    const [database, temporal] = await Promise.all([reachable(options.checks.database, timeoutMs), reachable(options.checks.temporal, timeoutMs)]);
    last = { checks: { database, temporal }, checkedAt: startedAt };
    return last;
  }

  return {
    current() {
      if (last && now() - last.checkedAt < maxAgeMs) return Promise.resolve(last);
      inFlight ??= check().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}

/** Whether every dependency answered. */
export function allReachable(checks: DependencyChecks): boolean {
  return checks.database === 'ok' && checks.temporal === 'ok';
}
