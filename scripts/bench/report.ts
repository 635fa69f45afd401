// Presents a run: a fixed-width table on stdout, and the same rows as JSON, with what the numbers
// depend on (machine, its load average, Node version, load settings, commit), in
// bench/results/<date>-<short sha>.json. That folder is in git: the README's numbers are copied from
// a file there, so anyone can check them against the commit they were measured on.
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import type { LoadSettings } from './load.ts';
import type { ResultRow } from './scenario.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
const RESULTS_DIR = path.join(REPOSITORY_ROOT, 'bench', 'results');

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
  settings: LoadSettings & Readonly<{ only: string | null; topology: string }>;
  /** Scenarios that threw instead of producing rows: a broken harness, not a slow API. */
  failures: ReadonlyArray<Readonly<{ scenario: string; error: string }>>;
  rows: readonly ResultRow[];
}>;

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

type Column = { title: string; align: 'left' | 'right'; cell: (row: ResultRow) => string };

const dash = '—';

// autocannon records latencies in whole milliseconds; a fixed decimal would suggest more precision.
const milliseconds = (value: number): string => String(Math.round(value * 10) / 10);

function formatErrors(row: ResultRow): string {
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

export function formatTable(rows: readonly ResultRow[]): string {
  const cells = rows.map((row) => COLUMNS.map((column) => column.cell(row)));
  const widths = COLUMNS.map((column, index) => Math.max(column.title.length, ...cells.map((line) => line[index]!.length)));
  const pad = (text: string, index: number): string => (COLUMNS[index]!.align === 'right' ? text.padStart(widths[index]!) : text.padEnd(widths[index]!));
  const line = (texts: string[]): string => texts.map(pad).join('  ').trimEnd();
  return [line(COLUMNS.map((column) => column.title)), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
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

/** Writes bench/results/<YYYY-MM-DD>-<short sha>.json (a later run of the same commit that day replaces it); returns its path. */
export async function writeReport(report: RunReport, dir: string = RESULTS_DIR): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${report.timestamp.slice(0, 10)}-${(report.commit ?? 'unknown').replace('+', '-')}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
