// `npm run worker`: the Temporal worker process. Needs DATABASE_URL and TEMPORAL_ADDRESS.
import { Client, Connection } from '@temporalio/client';
import { GracefulShutdownPeriodExpiredError, NativeConnection } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { loadConfigOrExit } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { temporalConnectionOptions } from '../platform/temporal-connection.ts';
import { createDatabasePool } from '../db/pool.ts';
import { createRallyWorker, preparedBundle } from './create-worker.ts';
import { ensureSchedules } from './schedules.ts';
import { startEventDispatcher } from './event-dispatcher.ts';

const config = loadConfigOrExit();
const log = createLogger('worker');
if (!config.databaseUrl || !config.temporal.address) {
  log.error('DATABASE_URL and TEMPORAL_ADDRESS must be set when the worker runs on its own (npm start sets both)');
  process.exit(78);
}

const db = await createDatabasePool(config.databaseUrl, { maximumPoolSize: 10 });
const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
const clientConnection = await Connection.connect(temporalConnectionOptions(config.temporal));
await ensureSchedules(new Client({ connection: clientConnection, namespace: config.temporal.namespace }), config.temporal.taskQueue);

const workflowBundle = preparedBundle(config.workflowBundlePath);
if (config.workflowBundlePath) log.info(workflowBundle ? 'using the prepared workflow bundle' : 'no prepared workflow bundle; bundling the workflows now', { path: config.workflowBundlePath });
const worker = await createRallyWorker({
  workflowBundle,
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  shutdownGraceMs: config.shutdown.workerGraceMs,
  activities: createActivities({ db, config, temporal: new Client({ connection: clientConnection, namespace: config.temporal.namespace }) }),
});
// The outbox dispatcher runs beside the worker: events → webhook deliveries and notifications.
const dispatcher = await startEventDispatcher({ config, db, databaseUrl: config.databaseUrl, temporal: new Client({ connection: clientConnection, namespace: config.temporal.namespace }), log });
log.info('polling', { task_queue: config.temporal.taskQueue, namespace: config.temporal.namespace });
// Worker.run() resolves after SIGINT/SIGTERM (the SDK installs those handlers) once shutdown drains.
try {
  await worker.run();
} catch (error) {
  if (!(error instanceof GracefulShutdownPeriodExpiredError)) throw error;
  log.warn('activities still running after RALLY_WORKER_SHUTDOWN_GRACE; leaving them to Temporal to retry', { grace_ms: config.shutdown.workerGraceMs });
  process.exitCode = 1;
}
await dispatcher.stop();
await clientConnection.close();
await connection.close();
await db.end();
log.info('stopped');
