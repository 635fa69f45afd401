// docs/benchmarks.md from the newest bench/results/*.json (scripts/bench/results-doc.ts):
// `node scripts/run.mjs scripts/benchmarks-doc.ts` prints it, `--write` writes it.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { newestResults, renderBenchmarksDoc } from './bench/results-doc.ts';

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

const { file, report } = await newestResults();
const page = renderBenchmarksDoc(file, report);
if (process.argv.includes('--write')) {
  const before = await readFile(DOC, 'utf8').catch(() => '');
  if (before !== page) await writeFile(DOC, page);
  process.stdout.write(before === page ? `docs/benchmarks.md already matches ${file}\n` : `docs/benchmarks.md regenerated from ${file}\n`);
} else {
  process.stdout.write(page);
}
