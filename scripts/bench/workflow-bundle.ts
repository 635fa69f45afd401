// The prepared workflow bundle the bench's workers load (RALLY_WORKFLOW_BUNDLE), as a production
// worker does instead of bundling workflows/ with webpack at every start: built once per bench run
// by `npm run build:workflows`' script into .data/bench/, so it is always the code under test.
import { spawn } from 'node:child_process';
import path from 'node:path';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
const BUNDLE = path.join(REPOSITORY_ROOT, '.data', 'bench', 'workflow-bundle.js');

let built: Promise<string> | undefined;

function build(log: (line: string) => void): Promise<string> {
  log(`building the workflow bundle into ${path.relative(REPOSITORY_ROOT, BUNDLE)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/build-workflows.ts', BUNDLE], { cwd: REPOSITORY_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(BUNDLE) : reject(new Error(`building the workflow bundle failed (${code}): ${stderr.slice(-500)}`))));
  });
}

/** The bundle's path, built on the first call of the run. */
export function workflowBundle(log: (line: string) => void): Promise<string> {
  built ??= build(log).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
