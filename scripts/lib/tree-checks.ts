// The checks `npm test` runs on the tree beside the parallel tests (which mostly wait): tsc, ESLint and
// Prettier, one after another so they take one core at most. What each printed is kept and shown only
// when it fails, so it does not interleave with the tests' output.
import { spawn } from 'node:child_process';

export type CheckResult = { label: string; ok: boolean; output: string };

function commands(bin: string): Array<[string, string, string[]]> {
  return [
    ['type-checking (tsc --noEmit)', `${bin}tsc`, ['--noEmit', '-p', '.']],
    ['linting (eslint)', `${bin}eslint`, ['--config', 'scripts/eslint.config.js', '.']],
    ['checking formatting (prettier --check)', `${bin}prettier`, ['--check', '.']],
  ];
}

export function checkLabels(bin: string): string[] {
  return commands(bin).map(([label]) => label);
}

export async function runTreeChecks(root: string, bin: string): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [label, command, args] of commands(bin)) {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    results.push({ label, ok: code === 0, output });
  }
  return results;
}
