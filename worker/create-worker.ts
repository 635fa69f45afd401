// Builds the Rally worker: every workflow from workflows/index.ts, every activity from
// activities/index.ts, on one task queue. Used by worker/main.ts and by the tests.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Activities } from '../activities/index.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Bundles the workflow code once; tests share one bundle across all their workers. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
}

/**
 * The prepared bundle at `path`, if the file is there. Webpack at every start costs the worker
 * seconds and well over 100 MB it never gives back; a bundle built ahead (npm run build:workflows)
 * costs neither.
 */
export function preparedBundle(path: string | undefined): { codePath: string } | undefined {
  return path && existsSync(path) ? { codePath: resolve(path) } : undefined;
}

const FORCE_AFTER_GRACE_MS = 5_000;

export type RallyWorkerOptions = {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: Activities;
  /** A bundle built in this process (tests share one), or the file of one prepared ahead. */
  workflowBundle?: WorkflowBundleWithSourceMap | { codePath: string };
  /** RALLY_WORKER_SHUTDOWN_GRACE: how long running activities may finish after SIGTERM (default 10 s). */
  shutdownGraceMs?: number;
  /** RALLY_WORKER_CACHED_WORKFLOWS; the SDK's default (from the heap limit) when not given. */
  maxCachedWorkflows?: number;
  /** Log-context and tracing interceptors and the workflow span sink (worker/observability.ts). */
  observability?: Pick<WorkerOptions, 'interceptors' | 'sinks'>;
};

export function createRallyWorker(options: RallyWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    // Lets in-flight activities finish on SIGTERM before the process exits; past the grace time they
    // are cancelled and Temporal retries them on another worker.
    shutdownGraceTime: options.shutdownGraceMs ?? 10_000,
    // An activity that ignores its cancellation (an HTTP call waiting out its own timeout) must not
    // hold the process past the grace: a little later the worker gives up on it, and Temporal retries
    // the attempt elsewhere once its timeout passes.
    shutdownForceTime: (options.shutdownGraceMs ?? 10_000) + FORCE_AFTER_GRACE_MS,
    // The SDK sizes its cache from the heap limit: about 2,400 workflows with a 4 GB heap, about 45 with
    // the 256 MB every deployment gives the worker (scripts/lib/topology-processes.ts). Since first
    // attempts and milestones no longer run as a workflow each, no hot path needs more; an evicted
    // workflow replays its history at its next task. Undefined leaves the SDK's default (read with ??).
    maxCachedWorkflows: options.maxCachedWorkflows,
    ...options.observability,
  });
}

const ignore = () => {};
const quietBundlerLogger = { trace: ignore, debug: ignore, info: ignore, warn: ignore, error: console.error, log: ignore };
