// Runs workflows on a real worker against the test Temporal server. Each test file gets its own task
// queue so workers of different files never take each other's tasks; the bundle is built once.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Worker } from '@temporalio/worker';
import { createActivities, type Activities } from '../../activities/index.ts';
import { petitionWorkflows } from '../../orchestration/petitions.ts';
import { createRallyWorker } from '../../worker/create-worker.ts';
import { testEnvironment } from './environment.ts';

export const HISTORIES_DIR = fileURLToPath(new URL('../histories/', import.meta.url));

export function uniqueTaskQueue(name: string): string {
  return `test-${name}-${randomUUID().slice(0, 8)}`;
}

export async function createTestWorker(
  taskQueue: string,
  activities: Partial<Activities> = {},
  options: { maxCachedWorkflows?: number } = {},
): Promise<Worker> {
  const { temporal, db, workflowBundle } = testEnvironment();
  return createRallyWorker({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace ?? 'default',
    taskQueue,
    activities: { ...createActivities({ db, petitionWorkflows: petitionWorkflows({ client: temporal.client, taskQueue }) }), ...activities },
    workflowBundle: await workflowBundle(),
    ...options,
  });
}

/**
 * Writes a finished workflow's history to test/histories/<name>.json when RALLY_CAPTURE_HISTORIES=1,
 * so a new or changed workflow path can be added to the replay suite from a test run.
 */
export async function captureHistory(name: string, handle: WorkflowHandle): Promise<void> {
  if (process.env.RALLY_CAPTURE_HISTORIES !== '1') return;
  const history = await handle.fetchHistory();
  await mkdir(HISTORIES_DIR, { recursive: true });
  // The canonical proto3 JSON form, the same the Temporal CLI and Web UI export.
  await writeFile(`${HISTORIES_DIR}${name}.json`, `${historyToJSON(history)}\n`);
}
