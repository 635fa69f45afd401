// Presents a run: a fixed-width table on stdout, and the same rows as JSON, with what the numbers
// depend on (machine, Node version, load settings), in bench-results/<timestamp>.json and
// bench-results/latest.json. bench-results/ is git-ignored: results belong to a machine, not the code.
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, totalmem } from 'node:os';
import path from 'node:path';
import type { LoadSettings } from './load.ts';
import type { ResultRow } from './scenario.ts';

const RESULTS_DIR = path.resolve(import.meta.dirname, '..', '..', 'bench-results');

export type MachineInfo = Readonly<{
  cores: number;
  cpuModel: string;
  totalMemoryMb: number;
  platform: string;
  arch: string;
  node: string;
}>;

export type RunReport = Readonly<{
  timestamp: string;
  machine: MachineInfo;
  settings: LoadSettings & Readonly<{ only: string | null }>;
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
  { title: 'ratio', align: 'right', cell: (row) => (row.ratio === null ? dash : row.ratio.toFixed(2)) },
  { title: 'goal', align: 'left', cell: (row) => row.goal ?? dash },
  { title: 'verdict', align: 'left', cell: (row) => row.verdict ?? dash },
];

export function formatTable(rows: readonly ResultRow[]): string {
  const cells = rows.map((row) => COLUMNS.map((column) => column.cell(row)));
  const widths = COLUMNS.map((column, index) => Math.max(column.title.length, ...cells.map((line) => line[index]!.length)));
  const pad = (text: string, index: number): string =>
    COLUMNS[index]!.align === 'right' ? text.padStart(widths[index]!) : text.padEnd(widths[index]!);
  const line = (texts: string[]): string => texts.map(pad).join('  ').trimEnd();
  return [
    line(COLUMNS.map((column) => column.title)),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...cells.map(line),
  ].join('\n');
}

/** File names sort in time order and contain no characters that trouble any file system. */
function fileStamp(timestamp: string): string {
  return timestamp.replace(/[:.]/g, '-');
}

/** Writes the report twice (dated and latest); returns the dated file's path. */
export async function writeReport(report: RunReport, dir: string = RESULTS_DIR): Promise<string> {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const dated = path.join(dir, `${fileStamp(report.timestamp)}.json`);
  await writeFile(dated, json);
  await writeFile(path.join(dir, 'latest.json'), json);
  return dated;
}
