// `npm run worker`: the Temporal worker process. Needs DATABASE_URL and TEMPORAL_ADDRESS.
import './telemetry.ts';
import { GracefulShutdownPeriodExpiredError, NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { webhookDependencies } from '../activities/webhooks.ts';
import { loadConfigOrExit } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { temporalConnectionOptions } from '../platform/temporal-connection.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createRallyWorker, preparedBundle } from './create-worker.ts';
import { startEventDispatcher } from './event-dispatcher.ts';
import { installTemporalRuntime, serveWorkerMetrics, workerObservabilityOptions } from './observability.ts';
import { currentTracing } from '../platform/telemetry.ts';
import { createWorkerOrchestration } from '../orchestration/index.ts';

const config = loadConfigOrExit(process.env, 'worker');
const log = createLogger('worker');
if (!config.databaseUrl || !config.temporal.address) {
  log.error('DATABASE_URL and TEMPORAL_ADDRESS must be set when the worker runs on its own (npm start sets both)');
  process.exit(78);
}

const coreMetricsUrl = await installTemporalRuntime(config);
const db = await createDatabasePool(config.databaseUrl, { maximumPoolSize: config.databasePoolSize ?? 10 });
const metricsServer = await serveWorkerMetrics(config, db, coreMetricsUrl);
const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
// One connection for polling and for starting: on it the dispatcher's batches start eagerly.
const orchestration = createWorkerOrchestration(connection, config.temporal);
await orchestration.ensureSchedules();

// One undici pool and one destination budget per process, for the dispatcher's first attempts and the retry activities alike.
const webhooks = webhookDependencies(db, config);

const observability = workerObservabilityOptions();
// Workflow interceptors (tracing) must be compiled into the bundle, and the prepared one has none:
// with tracing on, the worker bundles its workflows itself.
const tracingWorkflows = Boolean(observability.interceptors?.workflowModules?.length);
const workflowBundle = tracingWorkflows ? undefined : preparedBundle(config.workflowBundlePath);
if (config.workflowBundlePath) {
  const why = tracingWorkflows
    ? 'tracing is on: bundling the workflows with its interceptors now'
    : workflowBundle
      ? 'using the prepared workflow bundle'
      : 'no prepared workflow bundle; bundling the workflows now';
  log.info(why, { path: config.workflowBundlePath });
}
const worker = await createRallyWorker({
  workflowBundle,
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  shutdownGraceMs: config.shutdown.workerGraceMs,
  maxCachedWorkflows: config.workerCachedWorkflows,
  activities: createActivities({ db, config, petitionWorkflows: orchestration, webhooks }),
  observability,
});
// The outbox dispatcher runs beside the worker: events → webhook deliveries and notifications.
const dispatcher = await startEventDispatcher({
  config,
  db,
  databaseUrl: config.databaseListenUrl ?? config.databaseUrl,
  workflows: orchestration,
  webhooks,
  log,
});
// At the signal the dispatcher stops claiming at once and finishes the batches it is sending, while the
// worker drains its activities beside it (the SDK's own handlers stop the worker).
let dispatcherStopped: Promise<void> | undefined;
const stopDispatcher = () => (dispatcherStopped ??= dispatcher.stop(config.shutdown.workerGraceMs));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopDispatcher());
log.info('polling', {
  task_queue: config.temporal.taskQueue,
  namespace: config.temporal.namespace,
  ...(metricsServer ? { metrics_port: metricsServer.port } : {}),
});
// Worker.run() resolves after SIGINT/SIGTERM (the SDK installs those handlers) once shutdown drains.
try {
  await worker.run();
} catch (error) {
  if (!(error instanceof GracefulShutdownPeriodExpiredError)) throw error;
  log.warn('activities still running after RALLY_WORKER_SHUTDOWN_GRACE; leaving them to Temporal to retry', { grace_ms: config.shutdown.workerGraceMs });
  process.exitCode = 1;
}
await stopDispatcher();
// Requests past the grace are abandoned: their batches are sent again by another worker.
await webhooks.http.destroy();
await metricsServer?.close();
await connection.close();
await db.end();
await currentTracing()?.shutdown();
log.info('stopped');
