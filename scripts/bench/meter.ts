// What a measured window cost: CPU seconds per role (process-cpu.ts), PostgreSQL's work per statement
// (statements.ts) and, with --profile, CPU profiles per process (profiler.ts). The meter travels in
// the load settings, so every measureLoad of every scenario is metered without asking; costs of
// several windows of one row (interleaved rounds) are added up with addCosts.
import pg from 'pg';
import { cpuSecondsBetween, createProcessRegistry, snapshotCpu, type Role } from './process-cpu.ts';
import { startProfiles, type Profiled, type SelfTimes } from './profiler.ts';
import { addStatements, snapshotStatements, statementsBetween, topStatements, type StatementCost } from './statements.ts';

export type WindowCost = {
  seconds: number;
  cpuSeconds: Partial<Record<Role, number>>;
  statements: Map<string, { query: string; calls: number; totalMs: number; rows: number }>;
  selfTimes: Map<Role, SelfTimes>;
  profiles: string[];
};

/** A row's cost as the results JSON keeps it. */
export type RowCost = Readonly<{
  seconds: number;
  cpuSeconds: Partial<Record<Role, number>>;
  /** CPU milliseconds per request (per signature, per delivery…) of each role, when the row counts requests. */
  cpuMsPerRequest: Partial<Record<Role, number>> | null;
  topStatements: readonly StatementCost[];
  profiles: readonly string[];
  /** Only on MISS rows: each profiled process's five frames with the most self time. */
  topFrames?: Partial<Record<Role, readonly { frame: string; selfMs: number }[]>>;
}>;

export type Meter = Readonly<{
  /** Counts a process tree's CPU under `role`; with an inspector port (or, for Temporal, a pid perf can sample) it is profiled too. */
  register(role: Role, pid: number | undefined, inspectPort?: number): void;
  unregister(pid: number | undefined): void;
  measure<T>(label: string, work: () => Promise<T>): Promise<{ value: T; cost: WindowCost }>;
  profiling: boolean;
  close(): Promise<void>;
}>;

/** `profileDir` set turns profiling on; `databaseUrl` of a server with pg_stat_statements adds statements. */
export async function createMeter(options: Readonly<{ databaseUrl: string; profileDir: string | null }>): Promise<Meter> {
  const registry = createProcessRegistry();
  const profiled: (Profiled & { pid?: number })[] = [];
  let client: pg.Client | null = new pg.Client({ connectionString: options.databaseUrl });
  try {
    await client.connect();
    if ((await snapshotStatements(client)) === null) throw new Error('pg_stat_statements is not loaded');
  } catch {
    await client.end().catch(() => {});
    client = null;
  }
  let windows = 0;
  return {
    profiling: options.profileDir !== null,
    register(role, pid, inspectPort) {
      registry.add(role, pid);
      if (options.profileDir && (inspectPort !== undefined || role === 'temporal')) profiled.push({ role, pid, inspectPort });
    },
    unregister(pid) {
      registry.remove(pid);
      const index = profiled.findIndex((target) => target.pid === pid);
      if (index >= 0) profiled.splice(index, 1);
    },
    async measure(label, work) {
      windows += 1;
      const profiles = options.profileDir ? await startProfiles(profiled, options.profileDir, `${String(windows).padStart(3, '0')}-${label}`) : null;
      const statementsBefore = await snapshotStatements(client);
      const cpuBefore = await snapshotCpu(registry);
      const began = performance.now();
      const value = await work();
      const seconds = (performance.now() - began) / 1000;
      const cpuAfter = await snapshotCpu(registry);
      const statements = statementsBetween(statementsBefore, await snapshotStatements(client));
      const profiled_ = profiles ? await profiles.stop() : { files: [], selfTimes: new Map<Role, SelfTimes>() };
      return {
        value,
        cost: { seconds, cpuSeconds: cpuSecondsBetween(cpuBefore, cpuAfter), statements, selfTimes: profiled_.selfTimes, profiles: profiled_.files },
      };
    },
    close: async () => {
      await client?.end().catch(() => {});
    },
  };
}

export function emptyCost(): WindowCost {
  return { seconds: 0, cpuSeconds: {}, statements: new Map(), selfTimes: new Map(), profiles: [] };
}

/** The sum of several windows' costs. */
export function addCosts(...costs: readonly (WindowCost | undefined)[]): WindowCost {
  const total = emptyCost();
  for (const cost of costs) {
    if (!cost) continue;
    total.seconds += cost.seconds;
    for (const [role, seconds] of Object.entries(cost.cpuSeconds) as [Role, number][]) {
      total.cpuSeconds[role] = Math.round(((total.cpuSeconds[role] ?? 0) + seconds) * 100) / 100;
    }
    addStatements(total.statements, cost.statements);
    for (const [role, times] of cost.selfTimes) {
      const merged = total.selfTimes.get(role) ?? new Map<string, number>();
      for (const [frame, ms] of times) merged.set(frame, (merged.get(frame) ?? 0) + ms);
      total.selfTimes.set(role, merged);
    }
    total.profiles.push(...cost.profiles);
  }
  return total;
}

/** The JSON form of a row's cost; `requests` (when the row counts any) gives CPU per request. */
export function summariseCost(cost: WindowCost, requests: number, miss: boolean): RowCost {
  const perRequest =
    requests > 0 ? Object.fromEntries(Object.entries(cost.cpuSeconds).map(([role, seconds]) => [role, Math.round((seconds / requests) * 1e6) / 1e3])) : null;
  const topFrames = miss
    ? Object.fromEntries(
        [...cost.selfTimes].map(([role, times]) => [
          role,
          [...times]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 5)
            .map(([frame, ms]) => ({ frame, selfMs: Math.round(ms) })),
        ]),
      )
    : undefined;
  return {
    seconds: Math.round(cost.seconds * 10) / 10,
    cpuSeconds: cost.cpuSeconds,
    cpuMsPerRequest: perRequest,
    topStatements: topStatements(cost.statements),
    profiles: cost.profiles,
    ...(topFrames && Object.keys(topFrames).length > 0 ? { topFrames } : {}),
  };
}
