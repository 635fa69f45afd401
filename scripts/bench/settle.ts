// Waits for the machine to go quiet before a scenario starts. A scenario leaves work behind that outlives it (autovacuum after a million inserts, a worker
// draining its backlog, the Temporal server persisting what it was given), and on two cores that work would be measured as the next scenario's latency. The
// wait is bounded and logged, so a machine that never settles still runs.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const SAMPLE_MS = 1_000;
// Busy share of all cores below which the machine counts as quiet (the bench's own idle processes
// stay well under it).
const QUIET_BELOW = 0.15;
const MAX_WAIT_MS = 90_000;

type CpuTimes = { busy: number; total: number };

async function cpuTimes(): Promise<CpuTimes> {
  // The first line of /proc/stat sums all cores: user nice system idle iowait irq softirq steal …
  const fields = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const idle = fields[3]! + fields[4]!;
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** Resolves once a one-second sample shows the machine quiet, or after MAX_WAIT_MS; says how long it took. */
export async function settle(log: (line: string) => void): Promise<void> {
  const started = Date.now();
  let before = await cpuTimes();
  let busyShare = 1;
  while (Date.now() - started < MAX_WAIT_MS) {
    await sleep(SAMPLE_MS);
    const after = await cpuTimes();
    busyShare = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    before = after;
    if (busyShare < QUIET_BELOW) break;
  }
  const waited = ((Date.now() - started) / 1_000).toFixed(0);
  const quiet = busyShare < QUIET_BELOW;
  log(`${quiet ? 'machine quiet' : 'machine still busy'} (${Math.round(busyShare * 100)}% of the cores) after ${waited} s`);
}
