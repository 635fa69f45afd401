// Carrying a trace across a durable hop (an outbox row): the W3C `traceparent`/`tracestate` of the
// active context, and back. Only @opentelemetry/api, which is a no-op until tracing starts
// (platform/telemetry.ts), so the domain can call these whether tracing is on or not.
import { context, propagation, type Context } from '@opentelemetry/api';

/** The active trace context as a W3C `traceparent` (and `tracestate`) carrier, or null outside a trace. */
export function traceCarrier(): Record<string, string> | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : null;
}

/** Runs `run` inside the trace context a carrier describes (a stored outbox row's), or as is without one. */
export function withTraceCarrier<T>(carrier: Record<string, string> | null | undefined, run: () => T): T {
  if (!carrier) return run();
  const parent: Context = propagation.extract(context.active(), carrier);
  return context.with(parent, run);
}
