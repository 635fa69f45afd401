// The capacity model of docs/operations/capacity.md: the CPU each tier spent per signature, read and
// webhook delivery in the newest dev-server bench run (the topology whose meter attributes CPU to every
// process), turned into a sizing table. scripts/capacity-doc.ts writes it; a unit test recomputes it.
import { RESULTS_FOLDER, type ReportRow, type RunReport } from './report.ts';
import type { TopologyRun } from './results-doc.ts';

export const TABLE_START = '<!-- capacity table: generated from scripts/bench/results by `node scripts/run.mjs scripts/capacity-doc.ts --write` -->';
export const TABLE_END = '<!-- end of capacity table -->';

export const RATES = [1_000, 10_000, 50_000] as const;
/** Each signer's page views and the petition's other readers: reads per signature. */
export const READS_PER_SIGNATURE = 10;
/** One subscribed webhook endpoint (an organization's CRM) per signature. */
export const DELIVERIES_PER_SIGNATURE = 1;
/** Busy share of each core we plan for: room for bursts and for losing one process or node. */
export const TARGET_UTILISATION = 0.6;
/** A Node.js process runs JavaScript on one core: an API or worker process adds at most one. */
const CORES_PER_PROCESS = 1;
/** A large single PostgreSQL machine; past it, one primary is no longer enough. */
export const LARGEST_PRIMARY_CORES = 64;

const TIERS = ['api', 'worker', 'temporal', 'postgres'] as const;
type Tier = (typeof TIERS)[number];
type Costs = Record<Tier, number>;

/** The bench rows each unit of work is read from; a unit measured by two rows takes each tier's larger cost. */
export const UNIT_ROWS = {
  signature: [
    { scenario: 'signing', target: 'API sign, hot petition' },
    { scenario: 'signing', target: 'API sign, 10,000 petitions' },
  ],
  read: [{ scenario: 'scale-out', target: 'GET /v1/petitions/{slug}, 1 API process' }],
  delivery: [{ scenario: 'webhook-delivery', target: 'pipeline alone: 10000 events to 1 endpoint, deliveries/s; ratio = ÷ bare undici loop' }],
} as const;
type Unit = keyof typeof UNIT_ROWS;

function rowCosts(report: RunReport, wanted: { scenario: string; target: string }): Costs {
  const row: ReportRow | undefined = report.rows.find((each) => each.scenario === wanted.scenario && each.target === wanted.target);
  const perRequest = row?.cost?.cpuMsPerRequest;
  if (!perRequest) throw new Error(`the bench run has no CPU per request for ${wanted.scenario} / ${wanted.target}`);
  return Object.fromEntries(TIERS.map((tier) => [tier, perRequest[tier] ?? 0])) as Costs;
}

/** CPU milliseconds per unit of work, per tier. */
export function unitCosts(report: RunReport): Record<Unit, Costs> {
  const entries = (Object.keys(UNIT_ROWS) as Unit[]).map((unit) => {
    const rows = UNIT_ROWS[unit].map((wanted) => rowCosts(report, wanted));
    return [unit, Object.fromEntries(TIERS.map((tier) => [tier, Math.max(...rows.map((costs) => costs[tier]))])) as Costs];
  });
  return Object.fromEntries(entries) as Record<Unit, Costs>;
}

/** Busy cores of each tier at `rate` signatures a second, with its reads and deliveries. */
export function busyCores(costs: Record<Unit, Costs>, rate: number): Costs {
  const perSignature = (tier: Tier) => costs.signature[tier] + READS_PER_SIGNATURE * costs.read[tier] + DELIVERIES_PER_SIGNATURE * costs.delivery[tier];
  return Object.fromEntries(TIERS.map((tier) => [tier, (rate * perSignature(tier)) / 1000])) as Costs;
}

export type Sizing = Readonly<{
  rate: number;
  apiProcesses: number;
  workerProcesses: number;
  temporalCores: number;
  postgresCores: number;
  pgbouncerPool: number;
  onePrimary: boolean;
}>;

export function sizing(costs: Record<Unit, Costs>, rate: number): Sizing {
  const busy = busyCores(costs, rate);
  const cores = (tier: Tier) => Math.ceil(busy[tier] / TARGET_UTILISATION);
  const postgresCores = cores('postgres');
  return {
    rate,
    apiProcesses: Math.max(2, Math.ceil(cores('api') / CORES_PER_PROCESS)),
    workerProcesses: Math.max(2, Math.ceil(cores('worker') / CORES_PER_PROCESS)),
    temporalCores: cores('temporal'),
    postgresCores,
    // PostgreSQL's rule of thumb for active connections: about two per core (the wiki's (cores × 2) + spindles).
    pgbouncerPool: postgresCores * 2,
    onePrimary: postgresCores <= LARGEST_PRIMARY_CORES,
  };
}

/** The run the model reads: the newest dev-server one, whose meter sees the API, worker and Temporal apart. */
export function capacitySource(runs: readonly TopologyRun[]): TopologyRun {
  const run = runs.find((each) => each.topology === 'dev-server');
  if (!run) throw new Error('no dev-server bench results to size from');
  return run;
}

const number = (value: number): string => value.toLocaleString('en-US');
const ms = (value: number): string => value.toFixed(3);

export function renderCapacityTable(run: TopologyRun): string {
  const costs = unitCosts(run.report);
  const rows = RATES.map((rate) => sizing(costs, rate));
  return [
    TABLE_START,
    `From \`${RESULTS_FOLDER}/${run.file}\` (${run.topology}, commit ${run.report.commit ?? '?'}, ${run.report.machine.cores} cores). CPU ms per unit of work:`,
    '',
    `| unit | ${TIERS.join(' | ')} |`,
    `|---|${TIERS.map(() => '---:').join('|')}|`,
    ...(Object.keys(costs) as Unit[]).map((unit) => `| ${unit} | ${TIERS.map((tier) => ms(costs[unit][tier])).join(' | ')} |`),
    '',
    `Sizing, with ${READS_PER_SIGNATURE} reads and ${DELIVERIES_PER_SIGNATURE} webhook delivery per signature, every core at ${TARGET_UTILISATION * 100} %:`,
    '',
    '| signatures/s | API processes (1 core each) | worker processes (1 core each) | Temporal server cores | PostgreSQL cores ' +
      '| PgBouncer pool (server connections) | one primary enough? |',
    '|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (row) =>
        `| ${number(row.rate)} | ${row.apiProcesses} | ${row.workerProcesses} | ${row.temporalCores} | ${row.postgresCores} | ${row.pgbouncerPool} ` +
        `| ${row.onePrimary ? 'yes' : `no (over ${LARGEST_PRIMARY_CORES} cores)`} |`,
    ),
    TABLE_END,
  ].join('\n');
}

/** The document with its table replaced by `table`. */
export function withCapacityTable(document: string, table: string): string {
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/operations/capacity.md has no capacity table markers');
  return document.slice(0, start) + table + document.slice(end + TABLE_END.length);
}
