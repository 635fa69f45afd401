// docs/benchmarks.md is generated from the newest scripts/bench/results/*.json of each topology; a new results
// file without `node scripts/run.mjs scripts/benchmarks-doc.ts --write` (or a hand edit of the page) fails here.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { newestResultsPerTopology, renderBenchmarksDoc } from '../../scripts/bench/results-doc.ts';

const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

const machine = { cores: 2, cpuModel: 'test cpu', loadAverage: [0, 0, 0], node: 'v24' };
const row = (scenario: string, target: string, requestsPerSecond: number) => ({
  scenario,
  target,
  requestsPerSecond,
  p99Ms: 5,
  ratio: null,
  goal: null,
  verdict: 'PASS',
  missed: [],
  cost: null,
});
const run = (timestamp: string, topology: string | undefined, rows: object[]) => ({
  commit: 'abc1234',
  timestamp,
  machine,
  settings: { durationSec: 10, connections: 50, rounds: 2, short: false, ...(topology ? { topology } : {}), only: null },
  rows,
  failures: [],
});

describe('docs/benchmarks.md', () => {
  it('equals what the newest bench results file of each topology generates', async () => {
    const runs = await newestResultsPerTopology();
    const committed = await readFile(DOC, 'utf8');
    expect(
      committed,
      `regenerate with: node scripts/run.mjs scripts/benchmarks-doc.ts --write (newest results: ${runs.map((r) => r.file).join(', ')})`,
    ).to.equal(renderBenchmarksDoc(runs));
  });

  it('has, per topology, a section naming its results file with one table line per row of that file, each with its verdict', async () => {
    const committed = await readFile(DOC, 'utf8');
    for (const { topology, file, report } of await newestResultsPerTopology()) {
      const section = committed.split(`\n## Topology \`${topology}\`\n`)[1]!.split('\n## ')[0]!.split('\n### ')[0]!;
      expect(section).to.contain(`scripts/bench/results/${file}`);
      const tableLines = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| scenario'));
      expect(tableLines).to.have.length(report.rows.length);
      report.rows.forEach((reportRow, index) => expect(tableLines[index]).to.contain(reportRow.verdict ?? '—'));
    }
  });

  it('takes the newest file of each topology (a file without a topology ran on the dev server) and puts their shared rows side by side', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rally-bench-results-'));
    try {
      const files = {
        'old-dev.json': run('2026-01-01T00:00:00.000Z', undefined, [row('signing', 'POST sign', 100)]),
        'new-dev.json': run('2026-01-03T00:00:00.000Z', 'dev-server', [row('signing', 'POST sign', 300), row('health', 'GET /health', 9000)]),
        'old-cluster.json': run('2026-01-02T00:00:00.000Z', 'cluster', [row('signing', 'POST sign', 150)]),
        'new-cluster.json': run('2026-01-04T00:00:00.000Z', 'cluster', [row('signing', 'POST sign', 250)]),
      };
      await Promise.all(Object.entries(files).map(([name, content]) => writeFile(path.join(dir, name), JSON.stringify(content))));
      const runs = await newestResultsPerTopology(dir);
      expect(runs.map((r) => [r.topology, r.file])).to.deep.equal([
        ['dev-server', 'new-dev.json'],
        ['cluster', 'new-cluster.json'],
      ]);
      const page = renderBenchmarksDoc(runs);
      expect(page).to.contain('| scenario | target | dev-server (new-dev.json) | cluster (new-cluster.json) |');
      expect(page).to.contain('| signing | POST sign | 300 (p99 5) PASS | 250 (p99 5) PASS |');
      expect(page.split('\n## Topology')[0]).not.to.contain('GET /health');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names each metered process of a row with its CPU, CPU per request and memory, and a column for each role the run metered', () => {
    const processes = {
      'api-sign': { role: 'api', cpuSeconds: 9, cpuMsPerRequest: 0.3, memoryMb: 150 },
      'cluster haproxy-1': { role: 'haproxy', cpuSeconds: 1.5, cpuMsPerRequest: 0.05, memoryMb: 20 },
      load: { role: 'load', cpuSeconds: 0, cpuMsPerRequest: 0, memoryMb: 90 },
    };
    const cost = { seconds: 45, cpuSeconds: { api: 9, haproxy: 1.5, load: 0 }, cpuMsPerRequest: null, processes, topStatements: [], profiles: [] };
    const page = renderBenchmarksDoc([
      { topology: 'cluster', file: 'run.json', report: run('2026-01-04T00:00:00.000Z', 'cluster', [{ ...row('signing', 'POST sign', 2000), cost }]) as never },
    ]);
    expect(page).to.contain('| scenario | target | api | worker | temporal | postgres | haproxy | load | top statement (total ms, calls) | each process |');
    expect(page).to.contain('api-sign 9.00 (0.300) 150 MB; cluster haproxy-1 1.50 (0.050) 20 MB |');
  });
});
