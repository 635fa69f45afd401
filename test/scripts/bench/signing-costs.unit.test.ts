// Issue 43's cost rows of the signing scenario, from a metered hot row: statements a signing request
// sends outside its batch, CPU per signature per process beside its reference, bucket rows per signature.
import { expect } from 'chai';
import { emptyCost, type WindowCost } from '../../../scripts/bench/meter.ts';
import { signingCostRows, statementsOutsideBatch } from '../../../scripts/bench/signing-costs.ts';

const statement = (query: string, calls: number, toplevel = true) => ({ query, calls, totalMs: calls / 10, rows: calls, toplevel });

function hotCost(): WindowCost {
  const cost = emptyCost();
  cost.seconds = 15;
  cost.cpuSeconds = { postgres: 6, api: 4.5, worker: 3 };
  cost.processes = {
    'api-sign': { role: 'api', cpuSeconds: 4.5, memoryMb: 150 },
    postgres: { role: 'postgres', cpuSeconds: 6, memoryMb: 400 },
  };
  cost.statements.set('batch', statement('WITH signers AS (…) INSERT INTO signatures (petition_id, user_id) SELECT …', 3_000));
  cost.statements.set('facts', statement('SELECT id, signature_goal FROM petitions WHERE id = ANY($1)', 3_000));
  cost.statements.set('lookup', statement('SELECT id, suspended_at FROM users WHERE identity_subject = $1', 30_000));
  cost.statements.set('trigger', statement('INSERT INTO signature_rollup_queue VALUES ($1)', 30_000, false));
  cost.statements.set('sync', statement('INSERT INTO rate_limit_buckets … ON CONFLICT', 60));
  cost.tableWrites.set('rate_limit_buckets', 90_000);
  return cost;
}

const hot = { requestsPerSecond: 2_000, p50Ms: 20, p99Ms: 60, errors: 0, timeouts: 0, non2xx: 0, requests: 30_000, durationSec: 15, cost: hotCost() };

describe('the signing cost rows (scripts/bench/signing-costs.ts)', () => {
  it('counts a statement sent per request as outside the batch, not what runs once per batch, in a trigger, or on a cadence', () => {
    expect(statementsOutsideBatch(hotCost(), 30_000)).to.deep.equal({ perSignature: 1, top: 'SELECT id, suspended_at FROM users WHERE identity_subject = $1' });
    const lean = hotCost();
    lean.statements.delete('lookup');
    expect(statementsOutsideBatch(lean, 30_000).perSignature).to.equal(0);
  });

  it("judges PostgreSQL's CPU per signature against 0.40 ms and pgbench's, the API's against 0.30 ms, and bucket rows against 0.1 a signature", () => {
    const pgbenchCost = emptyCost();
    pgbenchCost.cpuSeconds = { postgres: 4 };
    const bareCost = emptyCost();
    bareCost.cpuSeconds = { baseline: 1 };
    const bare = { ...hot, requests: 100_000, cost: bareCost };
    const rows = signingCostRows({
      scenario: 'signing',
      hot,
      pgbench: { transactions: 20_000, tps: 1_333, latencyMs: 6, cost: pgbenchCost },
      bare,
      apiName: 'api-sign',
    });
    const [postgres, api, worker, statements, buckets] = rows;
    expect(postgres!.target).to.contain('0.200').and.contain('pgbench insert + count: 0.200 ms CPU');
    expect(postgres!.verdict).to.equal('PASS');
    expect(api!.target).to.contain('0.150').and.contain('bare node:http: 0.010 ms per request');
    expect(api!.verdict).to.equal('PASS');
    expect(worker!.verdict).to.equal('MISS');
    expect(statements!.verdict).to.equal('MISS');
    expect(buckets!.ratio).to.equal(3);
    expect(buckets!.verdict).to.equal('MISS');
  });

  it('says INVALID, not PASS, when a process was not metered', () => {
    const rows = signingCostRows({ scenario: 'signing', hot: { ...hot, cost: undefined }, pgbench: null, bare: hot, apiName: 'api-sign' });
    expect(rows.map((row) => row.verdict)).to.deep.equal(['INVALID', 'INVALID', 'INVALID', 'INVALID', 'INVALID']);
  });
});
