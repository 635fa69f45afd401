// docs/benchmarks.md is generated from the newest bench/results/*.json; a new results file without
// `node scripts/run.mjs scripts/benchmarks-doc.ts --write` (or a hand edit of the page) fails here.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { newestResults, renderBenchmarksDoc } from '../../scripts/bench/results-doc.ts';

const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

describe('docs/benchmarks.md', () => {
  it('equals what the newest bench results file generates', async () => {
    const { file, report } = await newestResults();
    const committed = await readFile(DOC, 'utf8');
    expect(committed, `regenerate with: node scripts/run.mjs scripts/benchmarks-doc.ts --write (newest results: ${file})`).to.equal(
      renderBenchmarksDoc(file, report),
    );
  });

  it('has one table line per row of that file, each with its verdict', async () => {
    const { report } = await newestResults();
    const committed = await readFile(DOC, 'utf8');
    const firstTable = committed.split('\n## ')[0]!;
    const tableLines = firstTable.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| scenario'));
    expect(tableLines).to.have.length(report.rows.length);
    report.rows.forEach((row, index) => expect(tableLines[index]).to.contain(row.verdict ?? '—'));
  });
});
