// `npm run histories:capture -- [--type <workflow type>] [--limit N]`: exports the histories of finished workflows from a running Temporal server
// (TEMPORAL_ADDRESS, default `npm start`'s dev server) into test/histories/, where the replay test checks them against today's code. Histories are append-only:
// an existing file is never overwritten (the run names those kept and exits 1), so an older workflow version's history cannot be silently replaced.
import { mkdir } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { loadConfigOrExit } from '../platform/config.ts';
import { writeHistoryOnce } from './lib/history-files.ts';

const HISTORIES_DIR = new URL('../test/histories/', import.meta.url);

const config = loadConfigOrExit();
const { values } = parseArgs({ options: { type: { type: 'string' }, limit: { type: 'string', default: '20' } }, strict: true });
const limit = Number(values.limit);
if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive whole number');
if (values.type && !/^[A-Za-z][A-Za-z0-9_]*$/.test(values.type)) throw new Error('--type must be a workflow type name');

const address = config.temporal.address ?? '127.0.0.1:7233';
const connection = await Connection.connect({ address });
const client = new Client({ connection, namespace: config.temporal.namespace });
const query = [`ExecutionStatus != 'Running'`, values.type ? `WorkflowType = '${values.type}'` : undefined].filter(Boolean).join(' AND ');

await mkdir(HISTORIES_DIR, { recursive: true });
let written = 0;
const refused: string[] = [];
for await (const execution of client.workflow.list({ query })) {
  if (written >= limit) break;
  const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
  const name = `${execution.type}-${execution.workflowId}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const { outcome } = await writeHistoryOnce(HISTORIES_DIR, name, historyToJSON(history));
  if (outcome === 'exists') {
    refused.push(`${name}.json`);
    process.stderr.write(
      `refusing to overwrite test/histories/${name}.json: histories are append-only; start a workflow with a new id to capture another run\n`,
    );
    continue;
  }
  process.stdout.write(`captured ${name}.json (${execution.status.name})\n`);
  written += 1;
}
process.stdout.write(`${written} histories written to test/histories/ from ${address}\n`);
await connection.close();
if (refused.length > 0) {
  process.stderr.write(`${refused.length} existing histories were kept as they are: ${refused.join(', ')}\n`);
  process.exit(1);
}
