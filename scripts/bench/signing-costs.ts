// Issue 43's cost rows of the signing scenario, read from the hot row's meter (meter.ts): the CPU of PostgreSQL (beside pgbench's per transaction), of the
// signing API (beside a bare node:http server's per request) and of the worker per signature; the statements a signing request sends outside its batch; the
// rows the rate limiter writes to rate_limit_buckets per signature.
import type { LoadResult } from './load.ts';
import type { WindowCost } from './meter.ts';
import type { PgbenchResult } from './pgbench.ts';
import { check, judge, type ResultRow } from './scenario.ts';

export const MAX_POSTGRES_MS_PER_SIGNATURE = 0.4;
export const MAX_POSTGRES_TO_PGBENCH = 1.0;
export const MAX_API_MS_PER_SIGNATURE = 0.3;
export const MAX_WORKER_MS_PER_SIGNATURE = 0.05;
export const MAX_BUCKET_ROWS_PER_SIGNATURE = 0.1;
/** A statement run at least this often per signature is run per request (background work runs on its own cadence, far less often). */
const PER_REQUEST_CALLS = 0.5;

const NO_LOAD: LoadResult = { requestsPerSecond: 0, p50Ms: 0, p99Ms: 0, errors: 0, timeouts: 0, non2xx: 0, requests: 0, durationSec: 0 };
const fixed = (value: number | null, digits = 3) => (value === null ? '?' : value.toFixed(digits));

/** CPU ms per unit of a role (or, with `name`, of that one process) over a row's windows; null when it was not metered. */
export function cpuMsPer(cost: WindowCost | undefined, units: number, role: string, name?: string): number | null {
  if (!cost || units <= 0) return null;
  const seconds = name === undefined ? cost.cpuSeconds[role as keyof WindowCost['cpuSeconds']] : cost.processes[name]?.cpuSeconds;
  return seconds === undefined ? null : (seconds * 1000) / units;
}

/**
 * Statements per signature outside its batch: Σ calls ÷ signatures over the hot row's top-level
 * statements (pg_stat_statements; what runs inside a function or trigger is not counted) that ran
 * more often than the batch statement (the top-level statement that inserts into signatures, once
 * per batch) and at least once per two signatures. A statement issued per request (a lookup before
 * the batch) is counted; what runs once per batch, and background work on its own cadence
 * (rate-limiter syncs, the dispatcher), is not.
 */
export function statementsOutsideBatch(cost: WindowCost, signatures: number): { perSignature: number; top: string | null } {
  const toplevel = [...cost.statements.values()].filter((statement) => statement.toplevel);
  const batch = toplevel.filter((statement) => /\bINSERT INTO signatures\b/i.test(statement.query)).sort((a, b) => b.calls - a.calls)[0];
  const batches = batch?.calls ?? 0;
  const outside = toplevel
    .filter((statement) => statement !== batch && statement.calls > batches && statement.calls >= PER_REQUEST_CALLS * signatures)
    .sort((a, b) => b.calls - a.calls);
  const calls = outside.reduce((sum, statement) => sum + statement.calls, 0);
  return { perSignature: signatures > 0 ? calls / signatures : 0, top: outside[0] ? outside[0].query.slice(0, 80) : null };
}

export type SigningCostInputs = Readonly<{
  scenario: string;
  hot: LoadResult;
  pgbench: PgbenchResult | null;
  bare: LoadResult;
  /** The meter's name of the API process under load. */
  apiName: string;
}>;

function costRow(scenario: string, target: string, requests: number, extra: Partial<ResultRow>): ResultRow {
  return { ...NO_LOAD, requests, scenario, target, ratio: null, goal: null, verdict: null, ...extra };
}

const measuredOrInvalid = (value: number | null, verdict: () => Partial<ResultRow>): Partial<ResultRow> =>
  value === null ? { verdict: 'INVALID' } : verdict();

export function signingCostRows(inputs: SigningCostInputs): ResultRow[] {
  const { hot, pgbench, bare, scenario } = inputs;
  const postgresMs = cpuMsPer(hot.cost, hot.requests, 'postgres');
  const pgbenchMs = pgbench ? cpuMsPer(pgbench.cost, pgbench.transactions, 'postgres') : null;
  const toPgbench = postgresMs !== null && pgbenchMs !== null && pgbenchMs > 0 ? postgresMs / pgbenchMs : null;
  const apiMs = cpuMsPer(hot.cost, hot.requests, 'api', inputs.apiName);
  const bareMs = cpuMsPer(bare.cost, bare.requests, 'baseline');
  const workerMs = cpuMsPer(hot.cost, hot.requests, 'worker');
  const outside = hot.cost ? statementsOutsideBatch(hot.cost, hot.requests) : null;
  const bucketRows = hot.cost ? (hot.cost.tableWrites.get('rate_limit_buckets') ?? 0) : null;
  const bucketsPerSignature = bucketRows === null || hot.requests === 0 ? null : bucketRows / hot.requests;
  const seconds = hot.cost?.seconds ?? hot.durationSec;
  return [
    costRow(
      scenario,
      `PostgreSQL CPU ms per signature, hot row: ${fixed(postgresMs)} (pgbench insert + count: ${fixed(pgbenchMs)} ms CPU, ` +
        `${pgbench?.latencyMs ?? '?'} ms latency per transaction); ratio = ÷ pgbench`,
      hot.requests,
      {
        ratio: toPgbench,
        goal: `≤ ${MAX_POSTGRES_MS_PER_SIGNATURE} ms and ≤ ${MAX_POSTGRES_TO_PGBENCH.toFixed(1)} × pgbench`,
        ...measuredOrInvalid(toPgbench === null ? null : postgresMs, () =>
          judge([
            check('PostgreSQL CPU ms per signature', postgresMs, `≤ ${MAX_POSTGRES_MS_PER_SIGNATURE}`, postgresMs! <= MAX_POSTGRES_MS_PER_SIGNATURE),
            check('÷ pgbench CPU per transaction', toPgbench, `≤ ${MAX_POSTGRES_TO_PGBENCH}`, toPgbench! <= MAX_POSTGRES_TO_PGBENCH),
          ]),
        ),
      },
    ),
    costRow(scenario, `API CPU ms per signature, hot row: ${fixed(apiMs)} (bare node:http: ${fixed(bareMs)} ms per request)`, hot.requests, {
      ratio: apiMs === null ? null : apiMs / MAX_API_MS_PER_SIGNATURE,
      goal: `≤ ${MAX_API_MS_PER_SIGNATURE} ms`,
      ...measuredOrInvalid(apiMs, () =>
        judge([check('API CPU ms per signature', apiMs, `≤ ${MAX_API_MS_PER_SIGNATURE}`, apiMs! <= MAX_API_MS_PER_SIGNATURE)], hot),
      ),
    }),
    costRow(scenario, `worker CPU ms per signature, no subscriber (hot row): ${fixed(workerMs)}`, hot.requests, {
      ratio: workerMs === null ? null : workerMs / MAX_WORKER_MS_PER_SIGNATURE,
      goal: `≤ ${MAX_WORKER_MS_PER_SIGNATURE} ms`,
      ...measuredOrInvalid(workerMs, () =>
        judge([check('worker CPU ms per signature', workerMs, `≤ ${MAX_WORKER_MS_PER_SIGNATURE}`, workerMs! <= MAX_WORKER_MS_PER_SIGNATURE)], hot),
      ),
    }),
    costRow(
      scenario,
      `statements per signing request outside its batch (pg_stat_statements calls ÷ signatures, hot row): ${fixed(outside?.perSignature ?? null, 2)}` +
        (outside?.top ? ` (most: ${outside.top})` : ''),
      hot.requests,
      {
        ratio: outside?.perSignature ?? null,
        goal: '= 0',
        ...measuredOrInvalid(outside?.perSignature ?? null, () =>
          judge([check('statements per signature outside the batch', outside!.perSignature, '= 0', outside!.perSignature === 0)], hot),
        ),
      },
    ),
    costRow(
      scenario,
      `rate_limit_buckets rows written per second, hot row: ${bucketRows === null ? '?' : Math.round(bucketRows / seconds)} ` +
        `at ${Math.round(hot.requestsPerSecond)} signatures/s; ratio = rows ÷ signatures`,
      hot.requests,
      {
        ratio: bucketsPerSignature,
        goal: `≤ ${MAX_BUCKET_ROWS_PER_SIGNATURE} × signatures/s`,
        ...measuredOrInvalid(bucketsPerSignature, () =>
          judge(
            [
              check(
                'bucket rows per signature',
                bucketsPerSignature,
                `≤ ${MAX_BUCKET_ROWS_PER_SIGNATURE}`,
                bucketsPerSignature! <= MAX_BUCKET_ROWS_PER_SIGNATURE,
              ),
            ],
            hot,
          ),
        ),
      },
    ),
  ];
}
