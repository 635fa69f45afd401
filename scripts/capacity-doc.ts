// docs/operations/capacity.md's sizing table from the newest dev-server bench run (scripts/bench/capacity.ts):
// `node scripts/run.mjs scripts/capacity-doc.ts` prints it, `--write` puts it into the page.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { capacitySource, renderCapacityTable, withCapacityTable } from './bench/capacity.ts';
import { newestResultsPerTopology } from './bench/results-doc.ts';

const DOC = fileURLToPath(new URL('../docs/operations/capacity.md', import.meta.url));

const table = renderCapacityTable(capacitySource(await newestResultsPerTopology()));
if (process.argv.includes('--write')) {
  const before = await readFile(DOC, 'utf8');
  const after = withCapacityTable(before, table);
  if (after !== before) await writeFile(DOC, after);
  process.stdout.write(`docs/operations/capacity.md: ${after === before ? 'already up to date' : 'regenerated'}\n`);
} else {
  process.stdout.write(`${table}\n`);
}
