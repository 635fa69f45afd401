// CPU seconds of the processes under test, read from /proc (Linux): what a row costs, which the
// machine's other load does not change the way it changes a rate. Each role (API, worker, Temporal,
// PostgreSQL…) is one or more process trees; a tree's figure is every live process's utime + stime
// plus the cutime + cstime of what it already reaped, so a PostgreSQL backend that started and ended
// inside a row still counts (the postmaster reaps its backends). Elsewhere (no /proc) figures are null.
import { readdir, readFile } from 'node:fs/promises';

/** The roles the results JSON names; `bench` is the harness itself (load generators included). */
export type Role = 'api' | 'worker' | 'temporal' | 'postgres' | 'bench';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the bench runs on

type Stat = { pid: number; ppid: number; ticks: number };

/** Fields after the command name (which may hold spaces and parentheses): state is [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14]. */
function parseStat(text: string): Stat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  const fields = text
    .slice(close + 2)
    .trim()
    .split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return { pid, ppid: Number(fields[1]), ticks };
}

async function readAllStats(): Promise<Stat[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const stats = await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name))
      .map((name) =>
        readFile(`/proc/${name}/stat`, 'utf8').then(
          (text) => parseStat(text),
          () => null,
        ),
      ),
  );
  return stats.filter((stat): stat is Stat => stat !== null);
}

/** Ticks of each tree rooted at `roots`; a root that is gone counts 0. */
function treeTicks(stats: readonly Stat[], roots: readonly number[]): number {
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const byPid = new Map(stats.map((stat) => [stat.pid, stat]));
  let total = 0;
  const seen = new Set<number>();
  const visit = (stat: Stat | undefined): void => {
    if (!stat || seen.has(stat.pid)) return;
    seen.add(stat.pid);
    total += stat.ticks;
    for (const child of children.get(stat.pid) ?? []) visit(child);
  };
  for (const root of roots) visit(byPid.get(root));
  return total;
}

/** Which process trees belong to which role; scenarios add the processes they start and remove them when they stop them. */
export type ProcessRegistry = Readonly<{
  add(role: Role, pid: number | undefined): void;
  remove(pid: number | undefined): void;
  roots(): ReadonlyMap<Role, readonly number[]>;
}>;

export function createProcessRegistry(): ProcessRegistry {
  const roots = new Map<Role, number[]>([['bench', [process.pid]]]);
  return {
    add(role, pid) {
      if (pid !== undefined) roots.set(role, [...(roots.get(role) ?? []), pid]);
    },
    remove(pid) {
      for (const [role, pids] of roots)
        roots.set(
          role,
          pids.filter((known) => known !== pid),
        );
    },
    roots: () => roots,
  };
}

export type CpuSnapshot = ReadonlyMap<Role, number>;

/**
 * Ticks per role now. The bench's own tree holds every child it spawned, so its figure is taken
 * as itself minus the other roles' trees (which are its descendants).
 */
export async function snapshotCpu(registry: ProcessRegistry): Promise<CpuSnapshot> {
  const stats = await readAllStats();
  const snapshot = new Map<Role, number>();
  let others = 0;
  for (const [role, pids] of registry.roots()) {
    if (role === 'bench') continue;
    const ticks = treeTicks(stats, pids);
    snapshot.set(role, ticks);
    others += ticks;
  }
  snapshot.set('bench', treeTicks(stats, [process.pid]) - others);
  return snapshot;
}

/** CPU seconds per role between two snapshots; a role whose tree was replaced in between (restarted process) is clamped at 0. */
export function cpuSecondsBetween(before: CpuSnapshot, after: CpuSnapshot): Partial<Record<Role, number>> {
  const seconds: Partial<Record<Role, number>> = {};
  for (const [role, ticks] of after) {
    const delta = Math.max(0, ticks - (before.get(role) ?? 0));
    seconds[role] = Math.round((delta / CLOCK_TICKS_PER_SECOND) * 100) / 100;
  }
  return seconds;
}
