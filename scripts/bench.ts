// `npm run bench [-- --profile] [-- --topology dev-server|cluster]`: brings up a topology (bench/environment.ts), runs every scenario in bench/scenarios/ with
// each measured window metered (CPU and memory per process, PostgreSQL's top statements), prints a table, writes scripts/bench/results/<date>-<short sha>.json
// (kept in git; docs/benchmarks.md is generated from the newest) and stops everything. A MISS still exits 0 (a slow run is information); 1 = the harness broke.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../platform/config.ts';
import { createCleanup } from './bench/cleanup.ts';
import { startBenchEnvironment } from './bench/environment.ts';
import { ROUNDS } from './bench/interleave.ts';
import type { LoadSettings } from './bench/load.ts';
import { describeCommit, describeMachine, formatCosts, formatTable, toReportRow, writeReport, type ReportRow } from './bench/report.ts';
import { loadScenarios, selectScenarios, TOPOLOGIES, type Topology } from './bench/scenario.ts';
import { CLUSTER_SCENARIOS } from './bench/cluster-topology.ts';
import { settle } from './bench/settle.ts';
import { vacuumIfAutovacuumIsOff } from './bench/vacuum.ts';

const FULL_SECONDS = 15;
const MAX_SECONDS = 600;
const WARMUP_SEC = 2;
const CONNECTIONS = 50;
const PIPELINING = 1;
const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..');

const log = (line: string): void => {
  process.stdout.write(`bench: ${line}\n`);
};

// BENCH_SECONDS: measured seconds per round of a target (default 15, the least a full run uses); fewer is short
// mode, for trying rows (its results say `short: true`). BENCH_ONLY=<name>[,<name>…] runs only the scenario(s)
// named, e.g. search or signing,webhook-delivery.
function readSeconds(env: NodeJS.ProcessEnv): number {
  const raw = env.BENCH_SECONDS;
  if (raw === undefined || raw === '') return FULL_SECONDS;
  const seconds = Number(raw);
  if (!/^\d+$/.test(raw) || seconds < 1 || seconds > MAX_SECONDS) {
    throw new Error(`BENCH_SECONDS must be a whole number of seconds between 1 and ${MAX_SECONDS} (got "${raw}")`);
  }
  return seconds;
}

// --topology cluster runs against `npm run cluster`'s topology (bench/cluster-topology.ts), by default only the
// signing, webhook-delivery, petition-reads and scale-out scenarios; every row names its topology (dev-server
// otherwise). --profile writes CPU profiles of API, worker and Temporal per window to
// scripts/bench/profiles/<run>/, and a MISS row keeps each process's five hottest frames.
function readOptions(argv: string[]): { profile: boolean; topology: Topology } {
  const { values } = parseArgs({ args: argv, options: { profile: { type: 'boolean', default: false }, topology: { type: 'string', default: 'dev-server' } } });
  const topology = values.topology as Topology;
  if (!TOPOLOGIES.includes(topology)) throw new Error(`--topology must be one of ${TOPOLOGIES.join(', ')} (got "${values.topology}")`);
  return { profile: values.profile, topology };
}

// The meter covers each API, each worker, Temporal, PostgreSQL, PgBouncer and HAProxy on the cluster, the load
// generator and the harness; PostgreSQL's top statements and rows written per table go into each row. Each
// scenario starts once the machine is quiet (bench/settle.ts) and, on a server with autovacuum off, after the
// vacuum autovacuum would have done (bench/vacuum.ts). A scenario missing its goal is reported as MISS (with
// the failed checks in the JSON) and still exits 0: numbers vary by machine. Exit 1 means the harness itself
// broke; 130 an interruption.
async function main(env: NodeJS.ProcessEnv, argv: string[]): Promise<number> {
  const config = loadConfigOrExit(env);
  const options = readOptions(argv);
  const only = env.BENCH_ONLY || (options.topology === 'cluster' ? CLUSTER_SCENARIOS : undefined);
  const load: LoadSettings = { durationSec: readSeconds(env), warmupSec: WARMUP_SEC, connections: CONNECTIONS, pipelining: PIPELINING };
  const short = load.durationSec < FULL_SECONDS;
  const scenarios = selectScenarios(await loadScenarios(), only);
  const timestamp = new Date().toISOString();
  const machine = describeMachine();
  const commit = describeCommit();
  const profileDir = options.profile ? path.join(REPOSITORY_ROOT, 'scripts', 'bench', 'profiles', timestamp.replace(/[:.]/g, '-')) : null;

  const cleanup = createCleanup(log);
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (interrupted) return; // npm and the terminal may both deliver the same Ctrl-C
      interrupted = true;
      log(`${signal} received; stopping…`);
      void cleanup.runAll().finally(() => process.exit(130));
    });
  }

  const rows: ReportRow[] = [];
  const failures: { scenario: string; error: string }[] = [];
  try {
    const environment = await startBenchEnvironment({ config, env, load, topology: options.topology, profileDir, cleanup, log });
    for (const scenario of scenarios) {
      await vacuumIfAutovacuumIsOff(environment.databaseUrl, log);
      // A short run is for trying rows on a busy machine: it does not wait for quiet.
      if (!short) await settle(log);
      log(`scenario ${scenario.name}: ${scenario.goal}`);
      try {
        for (const row of await scenario.run(environment)) rows.push(toReportRow(row, options.topology));
      } catch (error) {
        // One broken scenario should not cost the results of the others.
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        log(`scenario ${scenario.name} failed: ${message}`);
        failures.push({ scenario: scenario.name, error: message });
      }
    }
  } finally {
    await cleanup.runAll();
  }

  process.stdout.write(`\n${formatTable(rows)}\n\n${formatCosts(rows)}\n\n`);
  const { meter: _meter, ...settings } = load;
  const file = await writeReport({
    timestamp,
    machine,
    commit,
    settings: { ...settings, rounds: ROUNDS, short, profile: options.profile, topology: options.topology, only: only ?? null },
    failures,
    rows,
  });
  log(`results written to ${file}`);
  if (profileDir) log(`CPU profiles in ${path.relative(REPOSITORY_ROOT, profileDir)}`);
  return failures.length > 0 ? 1 : 0;
}

try {
  process.exit(await main(process.env, process.argv.slice(2)));
} catch (error) {
  // The message names the cause (a bad variable, a service that would not start); the lines above
  // it carry the services' own output.
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
