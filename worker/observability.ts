// The worker's metrics, logs and traces, set up before any Temporal connection exists: Temporal's Runtime logs as Rally's JSON lines (with workflow_id, run_id,
// activity and attempt), an optional metrics port (RALLY_WORKER_METRICS_PORT), and with tracing on, the OpenTelemetry interceptors and the sink that exports
// workflow spans.
import { Runtime, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import type { LogLevel as TemporalLogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { createRequire } from 'node:module';
import type { OpenTelemetryWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';
import type { DatabasePool } from 'slonik';
import type { Config, LogLevel } from '../platform/config.ts';
import { withLogContext, writeLog } from '../platform/logger.ts';
import { observeGauge } from '../platform/metrics.ts';
import { fetchExposition, freeLoopbackPort, startMetricsServer } from '../platform/metrics-server.ts';
import { currentTracing } from '../platform/telemetry.ts';
import { deliveriesWaiting, endpointsFailingFor, outboxLagSeconds } from '../core/events/backlog.ts';

const LEVELS: Record<TemporalLogLevel, LogLevel> = { TRACE: 'debug', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

// Temporal's attribute names → Rally's log fields; the task token is left out (it completes the task).
function logFields(meta: LogMetadata | undefined): Record<string, unknown> {
  if (!meta) return {};
  const { workflowId, runId, workflowRunId, activityType, attempt, workflowType, taskToken: _token, sdkComponent, ...rest } = meta as Record<string, unknown>;
  return {
    ...(workflowId !== undefined ? { workflow_id: workflowId } : {}),
    ...((runId ?? workflowRunId) ? { run_id: runId ?? workflowRunId } : {}),
    ...(activityType !== undefined ? { activity: activityType } : {}),
    ...(attempt !== undefined ? { attempt } : {}),
    ...(workflowType !== undefined ? { workflow_type: workflowType } : {}),
    ...(sdkComponent !== undefined ? { sdk_component: sdkComponent } : {}),
    ...rest,
  };
}

const temporalLogger: TemporalLogger = {
  log: (level, message, meta) => writeLog(LEVELS[level], 'temporal', message, logFields(meta)),
  trace: (message, meta) => writeLog('debug', 'temporal', message, logFields(meta)),
  debug: (message, meta) => writeLog('debug', 'temporal', message, logFields(meta)),
  info: (message, meta) => writeLog('info', 'temporal', message, logFields(meta)),
  warn: (message, meta) => writeLog('warn', 'temporal', message, logFields(meta)),
  error: (message, meta) => writeLog('error', 'temporal', message, logFields(meta)),
};

/** Installs Temporal's Runtime; answers where Core serves its metrics, when the worker serves any. */
export async function installTemporalRuntime(config: Config): Promise<string | undefined> {
  const corePort = config.observability.workerMetricsPort === undefined ? undefined : await freeLoopbackPort();
  Runtime.install({
    logger: temporalLogger,
    telemetryOptions: {
      // Core's own warnings (a slow workflow task, a lost poll) come through the logger above as JSON
      // lines; left to the SDK's default they are coloured text on stderr that log pipelines cannot parse.
      logging: { forward: {} },
      ...(corePort === undefined ? {} : { metrics: { prometheus: { bindAddress: `127.0.0.1:${corePort}` } } }),
    },
  });
  return corePort === undefined ? undefined : `http://127.0.0.1:${corePort}/metrics`;
}

// An endpoint failing this long without a success is what rally_webhook_endpoints_failing counts.
const FAILING_FOR_MINUTES = 15;

/**
 * Scrape-time gauges of the outbox and the webhook queue, and GET /metrics when a port is set.
 * With RALLY_WORKER_METRICS_PORT, Core's Prometheus exporter listens on a loopback port of its own, and GET
 * /metrics on that port serves Rally's series followed by Core's (one port, one token).
 */
export async function serveWorkerMetrics(config: Config, db: DatabasePool, coreMetricsUrl: string | undefined) {
  observeGauge('rally_outbox_lag_seconds', () => outboxLagSeconds(db));
  observeGauge('rally_webhook_deliveries_waiting', () => deliveriesWaiting(db));
  observeGauge('rally_webhook_endpoints_failing', () => endpointsFailingFor(db, FAILING_FOR_MINUTES));
  const port = config.observability.workerMetricsPort;
  if (port === undefined) return undefined;
  return startMetricsServer({ port, token: config.observability.metricsToken, ...(coreMetricsUrl ? { extra: () => fetchExposition(coreMetricsUrl) } : {}) });
}

/** Every activity's log lines name its workflow, run, activity type and attempt. */
const activityLogContext: NonNullable<WorkerOptions['interceptors']>['activity'] = [
  (ctx) => ({
    inbound: {
      execute: (input, next) =>
        withLogContext(
          {
            workflow_id: ctx.info.workflowExecution?.workflowId,
            run_id: ctx.info.workflowExecution?.runId,
            activity: ctx.info.activityType,
            attempt: ctx.info.attempt,
          },
          () => next(input),
        ),
    },
  }),
];

const load = createRequire(import.meta.url);

/** Worker options for logs and, with tracing on, spans of workflows and activities. */
export function workerObservabilityOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const tracing = currentTracing();
  if (!tracing) return { interceptors: { activity: activityLogContext } };
  // Loaded only with tracing on, like the SDK itself (platform/telemetry.ts).
  const { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = load(
    '@temporalio/interceptors-opentelemetry/lib/worker/index.js',
  ) as typeof import('@temporalio/interceptors-opentelemetry/lib/worker/index.js');
  const sinks: InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }> = { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
  return {
    interceptors: {
      // The OTel interceptor first, so the log context runs inside the activity's span (trace_id in its lines).
      activity: [
        (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) }),
        ...activityLogContext!,
      ],
      workflowModules: [load.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js')],
    },
    sinks,
  };
}
