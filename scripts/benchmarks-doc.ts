// docs/benchmarks.md from the newest scripts/bench/results/*.json of each topology (scripts/bench/results-doc.ts):
// `node scripts/run.mjs scripts/benchmarks-doc.ts` prints it, `--write` writes it.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { newestResultsPerTopology, renderBenchmarksDoc } from './bench/results-doc.ts';

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

const runs = await newestResultsPerTopology();
const files = runs.map((run) => run.file).join(', ');
const page = renderBenchmarksDoc(runs);
if (process.argv.includes('--write')) {
  const before = await readFile(DOC, 'utf8').catch(() => '');
  if (before !== page) await writeFile(DOC, page);
  process.stdout.write(before === page ? `docs/benchmarks.md already matches ${files}\n` : `docs/benchmarks.md regenerated from ${files}\n`);
} else {
  process.stdout.write(page);
}
