// Presents a run: a fixed-width table on stdout, and the same rows as JSON, with what the numbers depend on (machine, its load average, Node version, load
// settings, commit), in scripts/bench/results/<date>-<short sha>.json. That folder is in git: the README's numbers are copied from a file there, so anyone can
// check them against the commit they were measured on.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import type { LoadSettings } from './load.ts';
import { summariseCost, type RowCost } from './meter.ts';
import type { Check, ResultRow, Topology } from './scenario.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Where runs are written, beside the bench's code; as the docs name it, from the repository's root. */
export const RESULTS_FOLDER = 'scripts/bench/results';
export const RESULTS_DIR = path.join(REPOSITORY_ROOT, RESULTS_FOLDER);

export type MachineInfo = Readonly<{
  cores: number;
  cpuModel: string;
  totalMemoryMb: number;
  platform: string;
  arch: string;
  node: string;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine skews the numbers. */
  loadAverage: readonly number[];
}>;

export type RunReport = Readonly<{
  timestamp: string;
  machine: MachineInfo;
  /** The commit measured (short sha, `+dirty` when the work tree had changes), or null outside git. */
  commit: string | null;
  settings: Omit<LoadSettings, 'meter'> & Readonly<{ rounds: number; short: boolean; profile: boolean; topology: Topology; only: string | null }>;
  /** Scenarios that threw instead of producing rows: a broken harness, not a slow API. */
  failures: ReadonlyArray<Readonly<{ scenario: string; error: string }>>;
  rows: readonly ReportRow[];
}>;

/** A row as the results JSON keeps it: the topology it ran on, the failed checks of a MISS, and its cost. */
export type ReportRow = Omit<ResultRow, 'cost'> & Readonly<{ topology: Topology; missed: readonly Check[]; cost: RowCost | null }>;

/** A MISS row's reason is its failed checks; a row judged only on its ratio gets that one check. */
export function toReportRow(row: ResultRow, topology: Topology): ReportRow {
  const { cost, ...rest } = row;
  const checks =
    row.checks ??
    (row.goal !== null && row.verdict !== null
      ? [{ what: 'ratio', measured: row.ratio === null ? null : Math.round(row.ratio * 1000) / 1000, goal: row.goal, pass: row.verdict === 'PASS' }]
      : []);
  const missed = row.verdict === 'MISS' ? checks.filter((one) => !one.pass) : [];
  return { ...rest, topology, missed, cost: cost ? summariseCost(cost, row.requests, row.verdict === 'MISS') : null };
}

export function describeMachine(): MachineInfo {
  return {
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    totalMemoryMb: Math.round(totalmem() / 1024 / 1024),
    platform: process.platform,
    arch: process.arch,
    node: process.version,
    loadAverage: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

type Column = { title: string; align: 'left' | 'right'; cell: (row: ReportRow) => string };

const dash = '—';

// autocannon records latencies in whole milliseconds; a fixed decimal would suggest more precision.
const milliseconds = (value: number): string => String(Math.round(value * 10) / 10);

function formatErrors(row: ReportRow): string {
  if (row.errors === 0 && row.non2xx === 0) return '0';
  return `${row.errors} + ${row.non2xx} non-2xx`;
}

const COLUMNS: Column[] = [
  { title: 'scenario', align: 'left', cell: (row) => row.scenario },
  { title: 'target', align: 'left', cell: (row) => row.target },
  { title: 'req/s', align: 'right', cell: (row) => Math.round(row.requestsPerSecond).toLocaleString('en-US') },
  { title: 'p50 ms', align: 'right', cell: (row) => milliseconds(row.p50Ms) },
  { title: 'p99 ms', align: 'right', cell: (row) => milliseconds(row.p99Ms) },
  { title: 'errors', align: 'right', cell: formatErrors },
  {
    title: 'rounds (req/s)',
    align: 'right',
    cell: (row) => (row.samples && row.samples.length > 1 ? row.samples.map((value) => value.toLocaleString('en-US')).join(' / ') : dash),
  },
  { title: 'ratio', align: 'right', cell: (row) => (row.ratio === null ? dash : row.ratio.toFixed(2)) },
  { title: 'goal', align: 'left', cell: (row) => row.goal ?? dash },
  { title: 'verdict', align: 'left', cell: (row) => row.verdict ?? dash },
];

export function formatTable(rows: readonly ReportRow[]): string {
  const cells = rows.map((row) => COLUMNS.map((column) => column.cell(row)));
  const widths = COLUMNS.map((column, index) => Math.max(column.title.length, ...cells.map((line) => line[index]!.length)));
  const pad = (text: string, index: number): string => (COLUMNS[index]!.align === 'right' ? text.padStart(widths[index]!) : text.padEnd(widths[index]!));
  const line = (texts: string[]): string => texts.map(pad).join('  ').trimEnd();
  return [line(COLUMNS.map((column) => column.title)), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
}

const ROLES = ['api', 'worker', 'temporal', 'postgres', 'pgbouncer', 'haproxy', 'load', 'baseline', 'other', 'bench'] as const;

/** Each metered process of a row: CPU seconds, (CPU ms per request), memory MB after the row; the roles' sums for older rows. */
function processCosts(cost: RowCost): string[] {
  const { cpuSeconds, cpuMsPerRequest, processes } = cost;
  if (processes) {
    return Object.entries(processes)
      .filter(([, part]) => part.cpuSeconds > 0 || part.role !== 'other')
      .map(
        ([name, part]) =>
          `${name} ${part.cpuSeconds.toFixed(2)}${part.cpuMsPerRequest === null ? '' : ` (${part.cpuMsPerRequest.toFixed(3)})`} ${part.memoryMb} MB`,
      );
  }
  return ROLES.filter((role) => cpuSeconds[role] !== undefined).map(
    (role) => `${role} ${cpuSeconds[role]!.toFixed(2)}${cpuMsPerRequest?.[role] !== undefined ? ` (${cpuMsPerRequest[role]!.toFixed(3)})` : ''}`,
  );
}

/** Per metered row: CPU seconds of each process over its windows, CPU ms per request, memory, and PostgreSQL's top statement. */
export function formatCosts(rows: readonly ReportRow[]): string {
  const lines = ['CPU per row and process (seconds over the measured rounds; ms per request in brackets; resident MB after the row):'];
  for (const row of rows) {
    if (!row.cost) continue;
    lines.push(`  ${row.scenario} · ${row.target}: ${processCosts(row.cost).join(', ')}`);
    const top = row.cost.topStatements[0];
    if (top) lines.push(`      top statement: ${top.totalMs} ms in ${top.calls} calls: ${top.query.slice(0, 120)}`);
    const writes = Object.entries(row.cost.tableWrites ?? {}).slice(0, 4);
    if (writes.length > 0) lines.push(`      rows written: ${writes.map(([table, count]) => `${table} ${count}`).join(', ')}`);
    for (const miss of row.missed) lines.push(`      MISS: ${miss.what} ${miss.measured ?? '?'} (goal ${miss.goal})`);
  }
  return lines.join('\n');
}

/** The commit under measurement, as `abc1234` or `abc1234+dirty`; null when git cannot tell. */
export function describeCommit(): string | null {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return null;
  }
}

/**
 * Writes scripts/bench/results/<YYYY-MM-DD>-<short sha>[-<topology>].json (a later run of the same commit and
 * topology that day replaces it; the cluster's run must not replace the dev server's); returns its path.
 */
export async function writeReport(report: RunReport, dir: string = RESULTS_DIR): Promise<string> {
  await mkdir(dir, { recursive: true });
  const suffix = report.settings.topology === 'cluster' ? '-cluster' : '';
  const file = path.join(dir, `${report.timestamp.slice(0, 10)}-${(report.commit ?? 'unknown').replace('+', '-')}${suffix}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
