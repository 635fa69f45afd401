// CPU seconds and memory of the processes under test, read from /proc (Linux): what a row costs, which the machine's other load does not change the way it
// changes a rate. Each process (an API, a worker, Temporal, PostgreSQL, PgBouncer, HAProxy, the load generator…) is a named process tree of a role.
import { readdir, readFile } from 'node:fs/promises';

/** The roles the results JSON names; `bench` is the harness itself, `load` a load generator process, `other` what fits no role. */
export type Role = 'api' | 'worker' | 'temporal' | 'postgres' | 'pgbouncer' | 'haproxy' | 'load' | 'baseline' | 'pgbench' | 'other' | 'bench';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the bench runs on
const PAGE_KB = 4;

type Stat = { pid: number; ppid: number; ticks: number; residentKb: number; command: string };

/** Fields after the command name (which may hold spaces and parentheses): ppid [1], utime [11], stime [12], cutime [13], cstime [14], rss pages [21]. */
function parseStat(text: string, command: string): Stat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return { pid, ppid: Number(fields[1]), ticks, residentKb: Number(fields[21] ?? 0) * PAGE_KB, command };
}

async function readAllStats(): Promise<Stat[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const stats = await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const [stat, cmdline] = await Promise.all([readFile(`/proc/${name}/stat`, 'utf8'), readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')]).catch(
          () => [null, ''] as const,
        );
        return stat === null ? null : parseStat(stat, cmdline.replaceAll('\0', ' ').trim());
      }),
  );
  return stats.filter((stat): stat is Stat => stat !== null);
}

/** What a process of `npm run cluster` is, from its command line. */
export function classifyCommand(command: string): Role {
  if (/\bhaproxy\b/.test(command)) return 'haproxy';
  if (/\bpgbouncer\b/.test(command)) return 'pgbouncer';
  if (/\bapi\/main\.ts\b/.test(command)) return 'api';
  if (/\bworker\/main\.ts\b/.test(command)) return 'worker';
  if (/temporal(-server)?\b.* start\b/.test(command) && !/--env ui\b/.test(command)) return 'temporal';
  return 'other';
}

type Tree = { ticks: number; residentKb: number };

function indexStats(stats: readonly Stat[]) {
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  return { children, byPid: new Map(stats.map((stat) => [stat.pid, stat])) };
}

/**
 * Sum over the trees rooted at `roots`, skipping `stop` (subtrees counted elsewhere); a root that is gone counts 0.
 * A tree's figure is every live process's utime + stime plus the cutime + cstime of what it already reaped, so
 * a PostgreSQL backend that started and ended inside a row still counts.
 */
function treeOf(index: ReturnType<typeof indexStats>, roots: readonly number[], stop: ReadonlySet<number> = new Set()): Tree {
  const total = { ticks: 0, residentKb: 0 };
  const seen = new Set<number>();
  const visit = (stat: Stat | undefined): void => {
    if (!stat || seen.has(stat.pid)) return;
    seen.add(stat.pid);
    total.ticks += stat.ticks;
    total.residentKb += stat.residentKb;
    for (const child of index.children.get(stat.pid) ?? []) if (!stop.has(child.pid)) visit(child);
  };
  for (const root of roots) visit(index.byPid.get(root));
  return total;
}

type Entry = { name: string; role: Role; pid: number };

/** Which process trees are which; scenarios add the processes they start and remove them when they stop them. */
export type ProcessRegistry = Readonly<{
  /** `name` tells processes of one role apart (api, api-sign…); `cluster` trees are split by command line. */
  add(role: Role | 'cluster', pid: number | undefined, name?: string): void;
  remove(pid: number | undefined): void;
  entries(): readonly (Entry | (Omit<Entry, 'role'> & { role: 'cluster' }))[];
}>;

export function createProcessRegistry(): ProcessRegistry {
  const entries: (Entry | (Omit<Entry, 'role'> & { role: 'cluster' }))[] = [];
  return {
    add(role, pid, name = role) {
      if (pid === undefined) return;
      const taken = (candidate: string) => entries.some((entry) => entry.name === candidate);
      let unique = name;
      for (let n = 2; taken(unique); n += 1) unique = `${name}-${n}`;
      entries.push({ name: unique, role, pid } as Entry);
    },
    remove(pid) {
      const index = entries.findIndex((entry) => entry.pid === pid);
      if (index >= 0) entries.splice(index, 1);
    },
    entries: () => entries,
  };
}

export type ProcessSample = Readonly<{ role: Role; ticks: number; memoryMb: number }>;
export type CpuSnapshot = ReadonlyMap<string, ProcessSample>;

/**
 * The processes of a `cluster` tree, each its own named tree (api-1, api-2, worker-1…, by pid order), and the supervisor itself.
 * A tree registered as `cluster` (npm run cluster's supervisor) is split by command line into the processes it
 * runs.
 */
function splitCluster(index: ReturnType<typeof indexStats>, root: number, into: Map<string, ProcessSample>): void {
  const found: { role: Role; stat: Stat }[] = [];
  const walk = (pid: number) => {
    for (const child of index.children.get(pid) ?? []) {
      const role = classifyCommand(child.command);
      if (role === 'other') walk(child.pid);
      else found.push({ role, stat: child });
    }
  };
  walk(root);
  found.sort((a, b) => a.stat.pid - b.stat.pid);
  const counts = new Map<Role, number>();
  for (const { role, stat } of found) {
    const n = (counts.get(role) ?? 0) + 1;
    counts.set(role, n);
    const tree = treeOf(index, [stat.pid]);
    into.set(`cluster ${role}-${n}`, { role, ticks: tree.ticks, memoryMb: tree.residentKb / 1024 });
  }
  const rest = treeOf(index, [root], new Set(found.map(({ stat }) => stat.pid)));
  into.set('cluster supervisor', { role: 'other', ticks: rest.ticks, memoryMb: rest.residentKb / 1024 });
}

/**
 * Ticks and resident memory per named process now. The bench's own tree holds every child it
 * spawned, so its figure is taken as itself without the registered trees (its descendants).
 */
export async function snapshotCpu(registry: ProcessRegistry): Promise<CpuSnapshot> {
  const index = indexStats(await readAllStats());
  const snapshot = new Map<string, ProcessSample>();
  for (const entry of registry.entries()) {
    if (entry.role === 'cluster') splitCluster(index, entry.pid, snapshot);
    else {
      const tree = treeOf(index, [entry.pid]);
      snapshot.set(entry.name, { role: entry.role, ticks: tree.ticks, memoryMb: tree.residentKb / 1024 });
    }
  }
  const own = treeOf(index, [process.pid], new Set(registry.entries().map((entry) => entry.pid)));
  snapshot.set('bench', { role: 'bench', ticks: own.ticks, memoryMb: own.residentKb / 1024 });
  return snapshot;
}

export type ProcessCost = { role: Role; cpuSeconds: number; memoryMb: number };

const seconds = (ticks: number) => Math.round((ticks / CLOCK_TICKS_PER_SECOND) * 100) / 100;

/** CPU seconds per process and per role between two snapshots (a process replaced in between is clamped at 0), with each one's memory at the end. */
export function cpuSecondsBetween(before: CpuSnapshot, after: CpuSnapshot): { roles: Partial<Record<Role, number>>; processes: Record<string, ProcessCost> } {
  const roles: Partial<Record<Role, number>> = {};
  const processes: Record<string, ProcessCost> = {};
  for (const [name, sample] of after) {
    const delta = Math.max(0, sample.ticks - (before.get(name)?.ticks ?? sample.ticks));
    processes[name] = { role: sample.role, cpuSeconds: seconds(delta), memoryMb: Math.round(sample.memoryMb) };
    roles[sample.role] = Math.round(((roles[sample.role] ?? 0) + seconds(delta)) * 100) / 100;
  }
  return { roles, processes };
}
