// docs/benchmarks.md, generated from the newest scripts/bench/results/*.json of each topology (newest by the
// run's own timestamp; a run records settings.topology, older files without it ran on the dev server):
// a table with a column per topology for the rows both ran, then per topology its run's settings, every
// row with its verdict and the failed checks of a MISS, and what each row cost in CPU per process.
// scripts/benchmarks-doc.ts writes it; a unit test fails when the committed page differs from what the
// newest results files give.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { TOPOLOGIES, type Topology } from './cluster-topology.ts';
import { RESULTS_DIR, RESULTS_FOLDER, type ReportRow, type RunReport } from './report.ts';

const ROLES = ['api', 'worker', 'temporal', 'postgres'] as const;
/** Roles a column is given for only in runs that metered them (runs from before issue 48 did not). */
const LATER_ROLES = ['pgbouncer', 'haproxy', 'load'] as const;
type ShownRole = (typeof ROLES)[number] | (typeof LATER_ROLES)[number];

export type TopologyRun = Readonly<{ topology: Topology; file: string; report: RunReport }>;

const topologyOf = (report: RunReport): Topology => (report.settings as Partial<RunReport['settings']>).topology ?? 'dev-server';

/** The newest run (by its timestamp) of each topology that has one, in TOPOLOGIES order. */
export async function newestResultsPerTopology(dir: string = RESULTS_DIR): Promise<TopologyRun[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  const reports = await Promise.all(files.map(async (file) => ({ file, report: JSON.parse(await readFile(path.join(dir, file), 'utf8')) as RunReport })));
  reports.sort((a, b) => a.report.timestamp.localeCompare(b.report.timestamp));
  const runs = TOPOLOGIES.flatMap((topology) => {
    const newest = reports.filter(({ report }) => topologyOf(report) === topology).at(-1);
    return newest ? [{ topology, ...newest }] : [];
  });
  if (runs.length === 0) throw new Error(`no results in ${dir}`);
  return runs;
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const rate = (value: number): string => (value > 0 ? Math.round(value).toLocaleString('en-US') : '—');
const ms = (value: number): string => (value > 0 ? String(Math.round(value * 10) / 10) : '—');

function reason(row: ReportRow): string {
  return (row.missed ?? []).map((miss) => `${miss.what} ${miss.measured ?? '?'} (goal ${miss.goal})`).join('; ');
}

function cpu(row: ReportRow, roles: readonly ShownRole[]): string[] {
  const cost = row.cost;
  return roles.map((role) => {
    const seconds = cost?.cpuSeconds[role];
    if (seconds === undefined) return '—';
    const perRequest = cost?.cpuMsPerRequest?.[role];
    return perRequest === undefined ? seconds.toFixed(2) : `${seconds.toFixed(2)} (${perRequest.toFixed(3)})`;
  });
}

/** Every process of a row: CPU seconds (CPU ms per request), resident MB after the row. */
function eachProcess(row: ReportRow): string {
  const processes = row.cost?.processes;
  if (!processes) return '—';
  return Object.entries(processes)
    .filter(([, part]) => part.cpuSeconds > 0)
    .map(
      ([name, part]) =>
        `${name} ${part.cpuSeconds.toFixed(2)}${part.cpuMsPerRequest === null ? '' : ` (${part.cpuMsPerRequest.toFixed(3)})`} ${part.memoryMb} MB`,
    )
    .join('; ');
}

const tableLine = (cells: readonly string[]): string => `| ${cells.map((text) => cell(String(text))).join(' | ')} |`;
const rowKey = (row: ReportRow): string => `${row.scenario}\u0000${row.target}`;
const throughput = (row: ReportRow | undefined): string => (row ? `${rate(row.requestsPerSecond)} (p99 ${ms(row.p99Ms)}) ${row.verdict ?? ''}`.trim() : '—');

/** The rows that ran on more than one topology, a column per topology, each naming its results file. */
function comparison(runs: readonly TopologyRun[]): string[] {
  const shared = runs[runs.length - 1]!.report.rows.filter((row) => runs.every((run) => run.report.rows.some((other) => rowKey(other) === rowKey(row))));
  return [
    '## Topologies side by side',
    '',
    'Requests per second (p99 ms) and verdict of the rows every topology ran; the sections below have the full runs.',
    '',
    tableLine(['scenario', 'target', ...runs.map((run) => `${run.topology} (${run.file})`)]),
    `|---|---|${runs.map(() => '---:').join('|')}|`,
    ...shared.map((row) =>
      tableLine([row.scenario, row.target, ...runs.map((run) => throughput(run.report.rows.find((other) => rowKey(other) === rowKey(row))))]),
    ),
  ];
}

function runSection({ topology, file, report }: TopologyRun): string[] {
  const settings = report.settings as Partial<RunReport['settings']>;
  const lines = [
    `## Topology \`${topology}\``,
    '',
    `From ${RESULTS_FOLDER}/${file}: commit \`${report.commit ?? 'unknown'}\`, ${report.timestamp}, ` +
      `${report.machine.cores} cores (${report.machine.cpuModel}), load average ${report.machine.loadAverage.join(' / ')} at the start, ` +
      `Node ${report.machine.node}.`,
    `Rounds of ${report.settings.durationSec} s` +
      (settings.rounds ? `, ${settings.rounds} interleaved rounds per target (the figure is their median, the rounds beside it)` : '') +
      `, ${report.settings.connections} connections` +
      (settings.short ? '; **short mode: a trial, not a measurement**' : '') +
      (report.settings.only ? `; only ${report.settings.only}` : '') +
      '.',
    '',
    '| scenario | target | req/s | p99 ms | rounds | ratio | goal | verdict | why a MISS |',
    '|---|---|---:|---:|---|---:|---|---|---|',
    ...report.rows.map((row) =>
      tableLine([
        row.scenario,
        row.target,
        rate(row.requestsPerSecond),
        ms(row.p99Ms),
        row.samples && row.samples.length > 1 ? row.samples.map((value) => value.toLocaleString('en-US')).join(' / ') : '—',
        row.ratio === null ? '—' : row.ratio.toFixed(2),
        row.goal ?? '—',
        row.verdict ?? '—',
        reason(row) || '—',
      ]),
    ),
  ];
  const metered = report.rows.filter((row) => row.cost);
  if (metered.length > 0) {
    const roles: ShownRole[] = [...ROLES, ...LATER_ROLES.filter((role) => metered.some((row) => row.cost!.cpuSeconds[role] !== undefined))];
    const perProcess = metered.some((row) => row.cost!.processes);
    lines.push(
      '',
      `### CPU per row (\`${topology}\`)`,
      '',
      "CPU seconds of each process over the row's measured rounds (from /proc), and in brackets CPU milliseconds per request (signature, delivery…)" +
        (perProcess ? '; the last column names each process, with its resident memory after the row.' : '.'),
      '',
      `| scenario | target | ${roles.join(' | ')} | top statement (total ms, calls) |${perProcess ? ' each process |' : ''}`,
      `|---|---|${roles.map(() => '---:').join('|')}|---|${perProcess ? '---|' : ''}`,
      ...metered.map((row) => {
        const top = row.cost!.topStatements[0];
        const statement = top ? `${top.totalMs} ms, ${top.calls}: \`${top.query.slice(0, 80)}\`` : '—';
        return tableLine([row.scenario, row.target, ...cpu(row, roles), statement, ...(perProcess ? [eachProcess(row)] : [])]);
      }),
    );
  }
  if (report.failures.length > 0)
    lines.push(
      '',
      `### Scenarios that failed (\`${topology}\`)`,
      '',
      ...report.failures.map((failure) => `- ${failure.scenario}: ${cell(failure.error.split('\n')[0]!)}`),
    );
  return lines;
}

export function renderBenchmarksDoc(runs: readonly TopologyRun[]): string {
  const sources = runs.map((run) => `${RESULTS_FOLDER}/${run.file}`).join(', ');
  const lines = [
    '# Benchmarks',
    '',
    `<!-- Generated by \`node scripts/run.mjs scripts/benchmarks-doc.ts --write\` from ${sources}; do not edit. -->`,
    '',
    `The newest run of \`npm run bench\` on each topology (${runs.map((run) => `\`${run.topology}\``).join(', ')}); ` +
      '`npm run bench -- --topology cluster` measures the cluster (docs/operations/cluster.md).',
    '',
    ...(runs.length > 1 ? [...comparison(runs), ''] : []),
    ...runs.flatMap((run, index) => [...(index > 0 ? [''] : []), ...runSection(run)]),
  ];
  return `${lines.join('\n')}\n`;
}
