// `npm run bench`: brings up a bench database, Temporal and the real API process (bench/environment.ts),
// runs every scenario in bench/scenarios/ (or only BENCH_ONLY=<name>[,<name>…]), prints a table and writes
// bench/results/<date>-<short sha>.json (kept in git), then stops everything. Each scenario starts once
// the machine is quiet (bench/settle.ts) and, on a server with autovacuum off, after the vacuum autovacuum
// would have done (bench/vacuum.ts).
//
//   BENCH_DURATION  measured seconds per target (default 10); each is preceded by a 2 s warm-up
//   BENCH_ONLY      run only the scenario(s) named, e.g. search or signing,webhook-delivery
//   --topology cluster  against `npm run cluster`'s topology (bench/cluster-topology.ts), by default only
//                   the signing, webhook-delivery, petition-reads and scale-out scenarios; every row
//                   names its topology (dev-server otherwise)
//
// A scenario missing its goal is reported as MISS and still exits 0: numbers vary by machine, and a
// slow run is information, not a failure. Exit 1 means the harness itself broke; 130 an interruption.
import { loadConfigOrExit } from '../platform/config.ts';
import { createCleanup, startBenchEnvironment } from './bench/environment.ts';
import type { LoadSettings } from './bench/load.ts';
import { CLUSTER_SCENARIOS, readTopology } from './bench/cluster-topology.ts';
import { describeCommit, describeMachine, formatTable, writeReport } from './bench/report.ts';
import { loadScenarios, selectScenarios, type ResultRow } from './bench/scenario.ts';
import { settle } from './bench/settle.ts';
import { vacuumIfAutovacuumIsOff } from './bench/vacuum.ts';

const DEFAULT_DURATION_SEC = 10;
const MAX_DURATION_SEC = 600;
const WARMUP_SEC = 2;
const CONNECTIONS = 50;
const PIPELINING = 1;

const log = (line: string): void => {
  process.stdout.write(`bench: ${line}\n`);
};

function readDuration(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_DURATION_SEC;
  const seconds = Number(raw);
  if (!/^\d+$/.test(raw) || seconds < 1 || seconds > MAX_DURATION_SEC) {
    throw new Error(`BENCH_DURATION must be a whole number of seconds between 1 and ${MAX_DURATION_SEC} (got "${raw}")`);
  }
  return seconds;
}

async function main(env: NodeJS.ProcessEnv): Promise<number> {
  const config = loadConfigOrExit(env);
  const topology = readTopology(process.argv.slice(2));
  const only = env.BENCH_ONLY || (topology === 'cluster' ? CLUSTER_SCENARIOS : undefined);
  const load: LoadSettings = { durationSec: readDuration(env.BENCH_DURATION), warmupSec: WARMUP_SEC, connections: CONNECTIONS, pipelining: PIPELINING };
  const scenarios = selectScenarios(await loadScenarios(), only);
  const timestamp = new Date().toISOString();
  const machine = describeMachine();
  const commit = describeCommit();

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

  const rows: ResultRow[] = [];
  const failures: { scenario: string; error: string }[] = [];
  try {
    const environment = await startBenchEnvironment({ config, env, load, cleanup, log, topology });
    for (const scenario of scenarios) {
      await vacuumIfAutovacuumIsOff(environment.databaseUrl, log);
      await settle(log);
      log(`scenario ${scenario.name}: ${scenario.goal}`);
      try {
        rows.push(...(await scenario.run(environment)).map((row) => ({ ...row, topology })));
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

  process.stdout.write(`\n${formatTable(rows)}\n\n`);
  const file = await writeReport({ timestamp, machine, commit, settings: { ...load, only: only ?? null, topology }, failures, rows });
  log(`results written to ${file}`);
  return failures.length > 0 ? 1 : 0;
}

try {
  process.exit(await main(process.env));
} catch (error) {
  // The message names the cause (a bad variable, a service that would not start); the lines above
  // it carry the services' own output.
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
