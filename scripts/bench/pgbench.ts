// The reference for PostgreSQL's CPU per signature: pgbench (PostgreSQL's own load tool) running the least a signature must do, on the same server in the same
// run: insert one row with a primary key into a table and add one to the count of one hot row, one transaction each. Its CPU per transaction is measured the
// way the signing rows are (the server's process tree, meter.ts), and pgbench's own per-transaction latency is kept beside it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { WindowCost } from './meter.ts';
import type { BenchEnvironment } from './scenario.ts';

const SCRIPT = `\\set signer random(1, 2000000000)
BEGIN;
INSERT INTO bench_pgbench_signatures (petition_id, signer) VALUES (1, :signer) ON CONFLICT DO NOTHING;
UPDATE bench_pgbench_counts SET count = count + 1 WHERE petition_id = 1;
END;
`;
const CLIENTS = 8;

export type PgbenchResult = Readonly<{ transactions: number; tps: number; latencyMs: number; cost: WindowCost | undefined }>;

async function prepare(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`
      DROP TABLE IF EXISTS bench_pgbench_signatures, bench_pgbench_counts;
      CREATE TABLE bench_pgbench_signatures (
        petition_id int NOT NULL, signer bigint NOT NULL, signed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (petition_id, signer)
      );
      CREATE TABLE bench_pgbench_counts (petition_id int PRIMARY KEY, count bigint NOT NULL);
      INSERT INTO bench_pgbench_counts VALUES (1, 0);`);
  } finally {
    await client.end();
  }
}

function runPgbench(databaseUrl: string, scriptFile: string, seconds: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pgbench', ['-n', '-f', scriptFile, '-c', String(CLIENTS), '-j', '2', '-T', String(seconds), databaseUrl], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`pgbench exited with ${code}: ${output.slice(-500)}`))));
  });
}

/** Null when pgbench is not installed (Debian: postgresql-client). */
export async function measurePgbench(env: BenchEnvironment, seconds: number): Promise<PgbenchResult | null> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rally-pgbench-'));
  const scriptFile = path.join(dir, 'signature.sql');
  await writeFile(scriptFile, SCRIPT);
  try {
    await prepare(env.databaseUrl);
    env.log(`pgbench: insert + hot-row count, ${CLIENTS} clients, ${seconds} s`);
    const { value: output, cost } = await env.meter.measure('pgbench insert + count', () => runPgbench(env.databaseUrl, scriptFile, seconds));
    const transactions = Number(/number of transactions actually processed: (\d+)/.exec(output)?.[1] ?? 0);
    const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(output)?.[1] ?? 0);
    const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1] ?? 0);
    env.log(`pgbench: ${transactions} transactions, ${Math.round(tps)}/s, ${latencyMs} ms each`);
    return { transactions, tps, latencyMs, cost };
  } catch (error) {
    env.log(`pgbench could not run: ${(error as Error).message}`);
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
