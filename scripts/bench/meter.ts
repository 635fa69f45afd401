// What a measured window cost: CPU seconds and memory per process and per role (process-cpu.ts), PostgreSQL's work per statement (statements.ts) and rows
// written per table, and, with --profile, CPU profiles per process (profiler.ts). The meter travels in the load settings, so every measureLoad of every
// scenario is metered without asking; costs of several windows of one row add up (addCosts).
import pg from 'pg';
import { cpuSecondsBetween, createProcessRegistry, snapshotCpu, type ProcessCost, type Role } from './process-cpu.ts';
import { startProfiles, type Profiled, type SelfTimes } from './profiler.ts';
import { addStatements, snapshotStatements, statementsBetween, topStatements, type Counters, type StatementCost } from './statements.ts';
import { snapshotTableWrites, tableWritesBetween } from './table-writes.ts';

export type WindowCost = {
  seconds: number;
  cpuSeconds: Partial<Record<Role, number>>;
  /** Each process's CPU seconds and its memory (MB resident) at the end of the window. */
  processes: Record<string, ProcessCost>;
  statements: Map<string, Counters>;
  /** Rows inserted + updated per table (pg_stat_user_tables). */
  tableWrites: Map<string, number>;
  selfTimes: Map<Role, SelfTimes>;
  profiles: string[];
};

/** One process's part of a row: CPU seconds, CPU ms per request when the row counts requests, memory in MB after the row. */
export type ProcessRowCost = Readonly<{ role: Role; cpuSeconds: number; cpuMsPerRequest: number | null; memoryMb: number }>;

const TOP_TABLES = 10;

/** A row's cost as the results JSON keeps it. */
export type RowCost = Readonly<{
  seconds: number;
  cpuSeconds: Partial<Record<Role, number>>;
  /** CPU milliseconds per request (per signature, per delivery…) of each role, when the row counts requests. */
  cpuMsPerRequest: Partial<Record<Role, number>> | null;
  /** The same, per process (api, api-sign, worker, cluster api-1…, postgres, load…). */
  processes?: Readonly<Record<string, ProcessRowCost>>;
  topStatements: readonly StatementCost[];
  /** Rows inserted + updated per table over the row's windows, the most written first. */
  tableWrites?: Readonly<Record<string, number>>;
  profiles: readonly string[];
  /** Only on MISS rows: each profiled process's five frames with the most self time. */
  topFrames?: Partial<Record<Role, readonly { frame: string; selfMs: number }[]>>;
}>;

export type Meter = Readonly<{
  /**
   * Counts a process tree's CPU under `role` and `name` (default the role; repeated names are numbered);
   * with an inspector port (or, for Temporal, a pid perf can sample) it is profiled too. A `cluster`
   * tree is split into its processes by command line.
   */
  register(role: Role | 'cluster', pid: number | undefined, inspectPort?: number, name?: string): void;
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
    register(role, pid, inspectPort, name) {
      registry.add(role, pid, name);
      if (role !== 'cluster' && options.profileDir && (inspectPort !== undefined || role === 'temporal')) profiled.push({ role, pid, inspectPort });
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
      const writesBefore = await snapshotTableWrites(client);
      const cpuBefore = await snapshotCpu(registry);
      const began = performance.now();
      const value = await work();
      const seconds = (performance.now() - began) / 1000;
      const cpuAfter = await snapshotCpu(registry);
      const statements = statementsBetween(statementsBefore, await snapshotStatements(client));
      const tableWrites = tableWritesBetween(writesBefore, await snapshotTableWrites(client));
      const profiled_ = profiles ? await profiles.stop() : { files: [], selfTimes: new Map<Role, SelfTimes>() };
      const cpu = cpuSecondsBetween(cpuBefore, cpuAfter);
      return {
        value,
        cost: {
          seconds,
          cpuSeconds: cpu.roles,
          processes: cpu.processes,
          statements,
          tableWrites,
          selfTimes: profiled_.selfTimes,
          profiles: profiled_.files,
        },
      };
    },
    close: async () => {
      await client?.end().catch(() => {});
    },
  };
}

export function emptyCost(): WindowCost {
  return { seconds: 0, cpuSeconds: {}, processes: {}, statements: new Map(), tableWrites: new Map(), selfTimes: new Map(), profiles: [] };
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
    for (const [name, part] of Object.entries(cost.processes)) {
      const known = total.processes[name];
      // Memory is the latest window's: what the process holds after the row.
      total.processes[name] = { role: part.role, cpuSeconds: Math.round(((known?.cpuSeconds ?? 0) + part.cpuSeconds) * 100) / 100, memoryMb: part.memoryMb };
    }
    addStatements(total.statements, cost.statements);
    for (const [table, rows] of cost.tableWrites) total.tableWrites.set(table, (total.tableWrites.get(table) ?? 0) + rows);
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
  const processes = Object.fromEntries(
    Object.entries(cost.processes).map(([name, part]) => [
      name,
      { ...part, cpuMsPerRequest: requests > 0 ? Math.round((part.cpuSeconds / requests) * 1e6) / 1e3 : null },
    ]),
  );
  const writes = [...cost.tableWrites].filter(([, rows]) => rows > 0).sort((a, b) => b[1] - a[1]);
  return {
    seconds: Math.round(cost.seconds * 10) / 10,
    cpuSeconds: cost.cpuSeconds,
    cpuMsPerRequest: perRequest,
    processes,
    topStatements: topStatements(cost.statements),
    tableWrites: Object.fromEntries(writes.slice(0, TOP_TABLES)),
    profiles: cost.profiles,
    ...(topFrames && Object.keys(topFrames).length > 0 ? { topFrames } : {}),
  };
}
