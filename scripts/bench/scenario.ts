// What a benchmark scenario is, and how scenarios are found: every file in scripts/bench/scenarios/
// that exports `scenario` is one. Adding a benchmark means adding a file there, nothing else.
import type { Topology } from './cluster-topology.ts';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LoadResult, LoadSettings } from './load.ts';
import type { Meter } from './meter.ts';

const SCENARIOS_DIR = path.join(import.meta.dirname, 'scenarios');

/** What every scenario gets: the running services, the shared load settings and a log line writer. */
export type BenchEnvironment = Readonly<{
  /** Base URL of the real API process, e.g. http://127.0.0.1:41234 (no trailing slash). */
  apiUrl: string;
  /** The migrated bench database (kept between runs, so seeded data can be reused). */
  databaseUrl: string;
  temporalAddress: string;
  /** The environment the API process was started with; reuse it to start a worker that matches. */
  serviceEnv: Readonly<NodeJS.ProcessEnv>;
  load: LoadSettings;
  /** Counts the CPU of the processes scenarios start (register them) and meters windows. */
  meter: Meter;
  /** How Temporal (and later the rest) was started, recorded in every row: 'dev-server' today. */
  topology: Topology;
  /** Node flags for a process the bench starts: an inspector port when profiling (register the port with the meter). */
  nodeArgs(): Promise<{ args: string[]; inspectPort?: number }>;
  log: (line: string) => void;
}>;

export { TOPOLOGIES, type Topology } from './cluster-topology.ts';

export type Verdict = 'PASS' | 'MISS' | 'INVALID';

/** One condition of a goal, e.g. { what: 'p99 ms', measured: 143, goal: '< 100', pass: false }: a MISS row's reason is its failed checks. */
export type Check = Readonly<{ what: string; measured: number | null; goal: string; pass: boolean }>;

export const check = (what: string, measured: number | null, goal: string, pass: boolean): Check => ({
  what,
  measured: measured === null ? null : Math.round(measured * 1000) / 1000,
  goal,
  pass,
});

/** One line of the results table and of the JSON file. */
export type ResultRow = LoadResult &
  Readonly<{
    scenario: string;
    /** What was loaded, e.g. "API GET /v1". */
    target: string;
    /** The measured figure relative to the scenario's reference, when it has one. */
    ratio: number | null;
    /** The goal in a few characters, e.g. "≥ 0.60"; null on reference rows. */
    goal: string | null;
    verdict: Verdict | null;
    /** The conditions the verdict was decided on; a row without them is judged on ratio against goal. */
    checks?: readonly Check[];
  }>;

export type Scenario = Readonly<{
  /** Short, kebab-case; what BENCH_ONLY matches. */
  name: string;
  /** One sentence: what is measured and what counts as a pass. */
  goal: string;
  run(env: BenchEnvironment): Promise<ResultRow[]>;
}>;

/**
 * A miss must never be confused with a broken measurement: when any target involved answered with
 * errors or non-2xx statuses, it was not doing the work the goal is about, so the figure means nothing.
 */
export function verdictFor(passes: boolean, ...involved: LoadResult[]): Verdict {
  if (involved.some((load) => load.errors > 0 || load.non2xx > 0 || load.requests === 0)) return 'INVALID';
  return passes ? 'PASS' : 'MISS';
}

/** Verdict and checks together: PASS when every check passes (INVALID when a load involved had errors). */
export function judge(checks: readonly Check[], ...involved: LoadResult[]): { verdict: Verdict; checks: readonly Check[] } {
  return {
    verdict: verdictFor(
      checks.every((one) => one.pass),
      ...involved,
    ),
    checks,
  };
}

function isScenario(value: unknown): value is Scenario {
  const candidate = value as Partial<Scenario> | undefined;
  return typeof candidate?.name === 'string' && typeof candidate.goal === 'string' && typeof candidate.run === 'function';
}

/** Imports every scenario file, in file-name order; a file without a valid `scenario` export is an error. */
export async function loadScenarios(dir: string = SCENARIOS_DIR): Promise<Scenario[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts')).sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const { scenario } = (await import(pathToFileURL(path.join(dir, file)).href)) as { scenario?: unknown };
    if (!isScenario(scenario)) {
      throw new Error(`scripts/bench/scenarios/${file} must export \`scenario\` with name, goal and run(env)`);
    }
    if (scenarios.some((known) => known.name === scenario.name)) throw new Error(`two scenarios are named "${scenario.name}"`);
    scenarios.push(scenario);
  }
  return scenarios;
}

/** All scenarios, or those BENCH_ONLY names (one name, or several separated by commas), in file order; an unknown name is an error listing the known ones. */
export function selectScenarios(all: Scenario[], only: string | undefined): Scenario[] {
  if (!only) return all;
  const names = only
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !all.some((scenario) => scenario.name === name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(
      `BENCH_ONLY=${only} names no scenario${unknown.length ? ` called ${unknown.join(', ')}` : ''}; known: ${all.map((scenario) => scenario.name).join(', ')}`,
    );
  }
  return all.filter((scenario) => names.includes(scenario.name));
}
