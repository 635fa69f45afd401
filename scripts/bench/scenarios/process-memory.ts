// Resident memory of the API and the worker as an operator sizing containers sees it, read from /proc when fresh and settled (idle) and again after work. Goals
// (issue 17): worker ≤ 200 MB idle, API ≤ 150 MB idle; the after-load figures are reported for comparison. Self-contained: it starts and stops its own
// processes on their own port and task queue.
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { spawnPrefixed, stopChild, type PrefixedChild } from '../../lib/child-process.ts';
import { freePort } from '../../lib/free-port.ts';
import { nodeArguments } from '../../lib/topology-processes.ts';
import { measureLoad } from '../load.ts';
import type { BenchEnvironment, ResultRow, Scenario } from '../scenario.ts';

const NAME = 'process-memory';
const GOALS_MB = { api: 150, worker: 200 } as const;
const SETTLE_MS = 5_000;
const WORKFLOWS_AFTER_LOAD = 50;
const READY_TIMEOUT_MS = 120_000;
const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '../../..');

/** Resident set size in MB, from /proc (Linux); undefined elsewhere. */
async function rssMb(pid: number | undefined): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${READY_TIMEOUT_MS / 1000} s`);
    await sleep(200);
  }
}

function row(target: string, mb: number | undefined, goalMb: number | null): ResultRow {
  const measured = mb === undefined ? null : Math.round(mb);
  return {
    scenario: NAME,
    target: `${target}: ${measured ?? '?'} MB RSS`,
    requestsPerSecond: 0,
    p50Ms: 0,
    p99Ms: 0,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    requests: 0,
    durationSec: 0,
    ratio: goalMb && measured !== null ? measured / goalMb : null,
    goal: goalMb ? `≤ ${goalMb} MB` : null,
    verdict: goalMb === null ? null : measured === null ? 'INVALID' : measured <= goalMb ? 'PASS' : 'MISS',
  };
}

function start(name: string, args: string[], env: NodeJS.ProcessEnv): PrefixedChild {
  return spawnPrefixed({ name, command: process.execPath, args, cwd: REPOSITORY_ROOT, env });
}

// The worker is started from a workflow bundle prepared ahead, as in production. After work: the API after a
// read load, the worker after running a batch of real Rally workflows with database activities.
export const scenario: Scenario = {
  name: NAME,
  goal: `a fresh worker holds ≤ ${GOALS_MB.worker} MB and a fresh API ≤ ${GOALS_MB.api} MB resident when idle; after-load figures beside them`,
  async run(env: BenchEnvironment): Promise<ResultRow[]> {
    const bundle = path.join(tmpdir(), `rally-bench-bundle-${randomUUID()}.js`);
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const taskQueue = `bench-memory-${randomUUID().slice(0, 8)}`;
    const serviceEnv = { ...env.serviceEnv, PORT: String(port), PUBLIC_URL: apiUrl, RALLY_TASK_QUEUE: taskQueue, RALLY_WORKFLOW_BUNDLE: bundle };
    const build = start('build-workflows', ['scripts/build-workflows.ts', bundle], serviceEnv);
    if ((await build.exited).code !== 0) throw new Error('building the workflow bundle failed');
    // With the V8 flags every deployment gives them (scripts/lib/topology-processes.ts).
    const api = start('api-memory', nodeArguments('api'), serviceEnv);
    const worker = start('worker-memory', nodeArguments('worker'), serviceEnv);
    let polling = false;
    worker.process.stdout?.on('data', (chunk: Buffer) => {
      polling ||= chunk.toString().includes('"polling"');
    });
    const connection = await Connection.connect({ address: env.temporalAddress });
    try {
      await until('the API answering', () =>
        fetch(`${apiUrl}/health/live`).then(
          (response) => response.ok,
          () => false,
        ),
      );
      await until('the worker polling', async () => polling);
      await sleep(SETTLE_MS);
      const idle = { api: await rssMb(api.process.pid), worker: await rssMb(worker.process.pid) };
      env.log(`idle RSS: API ${idle.api?.toFixed(0)} MB, worker ${idle.worker?.toFixed(0)} MB`);

      await measureLoad('API GET /v1/petitions?limit=20 (memory)', `${apiUrl}/v1/petitions?limit=20`, env.load, env.log);
      const client = new Client({ connection, namespace: env.serviceEnv.TEMPORAL_NAMESPACE ?? 'default' });
      await Promise.all(
        Array.from({ length: WORKFLOWS_AFTER_LOAD }, (_, index) =>
          client.workflow.execute('purgeIdempotencyKeys', { taskQueue, workflowId: `${taskQueue}-purge-${index}`, args: [] }),
        ),
      );
      await sleep(SETTLE_MS);
      const loaded = { api: await rssMb(api.process.pid), worker: await rssMb(worker.process.pid) };
      env.log(`after-load RSS: API ${loaded.api?.toFixed(0)} MB, worker ${loaded.worker?.toFixed(0)} MB`);
      return [
        row('worker idle', idle.worker, GOALS_MB.worker),
        row('API idle', idle.api, GOALS_MB.api),
        row(`worker after ${WORKFLOWS_AFTER_LOAD} workflows`, loaded.worker, null),
        row('API after read load', loaded.api, null),
      ];
    } finally {
      await connection.close();
      await Promise.all([stopChild(api, 15_000), stopChild(worker, 15_000)]);
      await rm(bundle, { force: true });
    }
  },
};
