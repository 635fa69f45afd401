// `npm run build:workflows [file]`: bundles workflows/ ahead of time into one file (default dist/workflow-bundle.js), which a production worker loads instead
// of running webpack at every start (RALLY_WORKFLOW_BUNDLE, or dist/workflow-bundle.js when NODE_ENV=production). Rebuild it whenever the workflow code
// changes: a worker runs exactly the code in the bundle.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleWorkflows } from '../worker/create-worker.ts';

const target = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
const { code } = await bundleWorkflows();
await mkdir(path.dirname(target), { recursive: true });
await writeFile(target, code);
process.stdout.write(`rally: workflow bundle written to ${target} (${Math.round(code.length / 1024)} KiB)\n`);
