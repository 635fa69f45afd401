// Comparisons measured side by side: each target is warmed up once, then the targets take turns (A B A B …), so a burst of load from elsewhere on the machine
// lands on both rather than on one. A target's figure is the median of its rounds, and its spread (slowest and fastest round) is reported with it, so a reader
// can tell a real gap from noise.
import { addCosts } from './meter.ts';
import { measureLoad, type LoadRequest, type LoadResult, type LoadSettings } from './load.ts';

/** Three rounds: a median that one disturbed round cannot move. */
export const ROUNDS = 3;

export type Target = Readonly<{ label: string; url: string; request?: LoadRequest }>;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One LoadResult per target, in the order given: medians of the rounds, errors summed, samples kept. */
export async function measureInterleaved(
  targets: readonly Target[],
  settings: LoadSettings,
  log: (line: string) => void,
  rounds = ROUNDS,
): Promise<LoadResult[]> {
  const runs = targets.map((): LoadResult[] => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, target] of targets.entries()) {
      const warmup = round === 0 ? settings.warmupSec : 0;
      runs[index]!.push(
        await measureLoad(`${target.label} (round ${round + 1}/${rounds})`, target.url, { ...settings, warmupSec: warmup }, log, target.request),
      );
    }
  }
  return runs.map(combineRounds);
}

/** One figure for several rounds of one target: medians, errors and requests summed, each round's rate kept, costs added. */
export function combineRounds(results: readonly LoadResult[]): LoadResult {
  return {
    requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
    p50Ms: median(results.map((result) => result.p50Ms)),
    p99Ms: median(results.map((result) => result.p99Ms)),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    timeouts: results.reduce((sum, result) => sum + result.timeouts, 0),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    durationSec: results.reduce((sum, result) => sum + result.durationSec, 0),
    samples: results.map((result) => Math.round(result.requestsPerSecond)),
    ...(results.some((result) => result.cost) ? { cost: addCosts(...results.map((result) => result.cost)) } : {}),
  };
}

export { median };

export const ratioOf = (measured: LoadResult, reference: LoadResult): number =>
  reference.requestsPerSecond > 0 ? measured.requestsPerSecond / reference.requestsPerSecond : 0;
