// docs/operations/capacity.md's sizing table is computed from the newest dev-server bench results; a
// new results file without `node scripts/run.mjs scripts/capacity-doc.ts --write` fails here.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { capacitySource, renderCapacityTable, sizing, TABLE_END, TABLE_START, unitCosts, UNIT_ROWS } from '../../scripts/bench/capacity.ts';
import type { RunReport } from '../../scripts/bench/report.ts';
import { newestResultsPerTopology } from '../../scripts/bench/results-doc.ts';

const DOC = fileURLToPath(new URL('../../docs/operations/capacity.md', import.meta.url));

const row = (wanted: { scenario: string; target: string }, cpuMsPerRequest: Record<string, number>) => ({ ...wanted, cost: { cpuMsPerRequest } });

describe('docs/operations/capacity.md', () => {
  it('has the sizing table the newest dev-server bench results give', async () => {
    const source = capacitySource(await newestResultsPerTopology());
    const committed = await readFile(DOC, 'utf8');
    const table = committed.slice(committed.indexOf(TABLE_START), committed.indexOf(TABLE_END) + TABLE_END.length);
    expect(table, `regenerate with: node scripts/run.mjs scripts/capacity-doc.ts --write (newest results: ${source.file})`).to.equal(
      renderCapacityTable(source),
    );
  });

  it('sizes each tier from its CPU per signature, 10 reads and 1 delivery per signature, at 60 % busy', () => {
    const [hot, spread] = UNIT_ROWS.signature;
    const report = {
      rows: [
        row(hot, { api: 1, worker: 0.5, temporal: 0.1, postgres: 1 }),
        row(spread, { api: 0.8, worker: 1, temporal: 0.5, postgres: 0.5 }),
        row(UNIT_ROWS.read[0], { api: 0.1, postgres: 0.01 }),
        row(UNIT_ROWS.delivery[0], { worker: 0.5, temporal: 0.5, postgres: 0.5 }),
      ],
    } as unknown as RunReport;
    const costs = unitCosts(report);
    // Per signature: API 1 + 10 × 0.1 = 2 ms, worker 1 + 0.5 = 1.5 ms, Temporal 0.5 + 0.5 = 1 ms, PostgreSQL 1 + 0.1 + 0.5 = 1.6 ms.
    expect(sizing(costs, 1_000)).to.deep.equal({
      rate: 1_000,
      apiProcesses: 4, // 2 busy cores / 0.6
      workerProcesses: 3, // 1.5 / 0.6
      temporalCores: 2, // 1 / 0.6
      postgresCores: 3, // 1.6 / 0.6
      pgbouncerPool: 6,
      onePrimary: true,
    });
    expect(sizing(costs, 50_000)).to.include({ apiProcesses: 167, postgresCores: 134, onePrimary: false });
  });
});
