// OpenTelemetry tracing for the API and the worker, configured by NodeSDK from the standard OTEL_* variables; without OTEL_EXPORTER_OTLP_ENDPOINT nothing is
// started (no spans, no instrumentation cost, no trace ids in logs). Each process imports its `telemetry.ts` first (api/, worker/), so the HTTP, pg and undici
// instrumentations are in place before those modules are first used.
import { createRequire } from 'node:module';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { IncomingMessage } from 'node:http';
import { loadConfigOrExit, type Config } from './config.ts';
import { setLogLevel } from './logger.ts';
import { redactSecretUrls } from './secret-urls.ts';

export type Tracing = { resource: Resource; spanProcessor: SpanProcessor; shutdown(): Promise<void> };

let tracing: Tracing | undefined;
const load = createRequire(import.meta.url);

// Paths whose requests are not worth a trace: scrapes and probes arrive every few seconds.
const UNTRACED_PATHS = new Set(['/metrics', '/health', '/health/live', '/health/ready']);

// The URL attributes of a span, with the credentials Rally's URLs carry masked (platform/secret-urls.ts).
// They replace the ones the instrumentations derive from the raw URL.
function incomingUrlAttributes(request: IncomingMessage): Record<string, string> {
  const target = redactSecretUrls(request.url ?? '/');
  const host = request.headers.host ?? 'localhost';
  return { 'http.target': target, 'http.url': `http://${host}${target}`, 'url.path': target.split('?')[0]! };
}

function outgoingUrlAttributes(request: { origin: string; path: string }): Record<string, string> {
  const [path = '/', query] = redactSecretUrls(request.path).split(/\?(.*)/s);
  return {
    'url.full': `${request.origin}${path}${query === undefined ? '' : `?${query}`}`,
    'url.path': path,
    'url.query': query === undefined ? '' : `?${query}`,
  };
}

/**
 * Starts tracing once per process when an OTLP endpoint is configured; later calls return the same.
 * The SDK, exporters and instrumentations (about 30 MB) are required only when tracing is on, and
 * synchronously, so they are in place before the modules imported after this one are evaluated. Exporter
 * variables: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf by default, or http/json),
 * OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_SCHEDULE_DELAY, …
 */
export function startTracing(service: string, config: Config): Tracing | undefined {
  const endpoint = config.observability.otlpEndpoint;
  if (tracing || !endpoint) return tracing;
  const { Resource } = load('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { NodeSDK } = load('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { BasicTracerProvider } = load('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { HttpInstrumentation } = load('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = load('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { UndiciInstrumentation } = load('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { trace, ProxyTracerProvider } = load('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const resource = new Resource({ 'service.name': service, 'service.namespace': 'rally' });
  const sdk = new NodeSDK({
    resource,
    // Rally sends no OTel logs or metrics (logs are JSON lines, metrics are Prometheus).
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]!),
        startIncomingSpanHook: incomingUrlAttributes,
      }),
      // Only within a trace: the dispatcher's and limiters' background polling would be noise.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true, startSpanHook: outgoingUrlAttributes }),
    ],
  });
  sdk.start();
  // The processors NodeSDK made from the environment, which the worker also hands Temporal's workflow
  // span exporter; none when OTEL_TRACES_EXPORTER=none.
  const registered = trace.getTracerProvider();
  const provider = registered instanceof ProxyTracerProvider ? registered.getDelegate() : registered;
  if (!(provider instanceof BasicTracerProvider)) {
    void sdk.shutdown();
    return undefined;
  }
  tracing = { resource, spanProcessor: provider.getActiveSpanProcessor(), shutdown: () => sdk.shutdown() };
  return tracing;
}

/** What each process's first import runs: LOG_LEVEL, then tracing when an endpoint is set. */
export function bootstrapObservability(service: string): Tracing | undefined {
  const config = loadConfigOrExit();
  setLogLevel(config.observability.logLevel);
  return startTracing(service, config);
}

export function currentTracing(): Tracing | undefined {
  return tracing;
}

/** For every Temporal Client: starts, signals and updates carry the caller's trace to the workflow. */
export function tracingClientInterceptors(): WorkflowClientInterceptor[] {
  if (!tracing) return [];
  const { OpenTelemetryWorkflowClientInterceptor } = load(
    '@temporalio/interceptors-opentelemetry/lib/client/index.js',
  ) as typeof import('@temporalio/interceptors-opentelemetry/lib/client/index.js');
  return [new OpenTelemetryWorkflowClientInterceptor()];
}
