// Logs, metrics and traces (docs/operations/observability.md).

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { integer, logLevel, oneOf, text, url } from './variables.ts';

export const observabilityVariables = {
  LOG_LEVEL: logLevel({
    default: 'info',
    description: "`debug`, `info`, `warn` or `error`. At `debug` the API logs one line per request and the worker Temporal's own activity and workflow lines.",
  }),
  RALLY_METRICS_TOKEN: Type.Optional(
    text({
      defaultText: 'unset (open; production requires it)',
      description:
        '`GET /metrics` on the API and the worker needs `Authorization: Bearer <token>` (compared in constant ' +
        'time; 401 problem otherwise). With `NODE_ENV=production` the API, and the worker when ' +
        '`RALLY_WORKER_METRICS_PORT` is set, refuse to start without it.',
    }),
  ),
  RALLY_WORKER_METRICS_PORT: Type.Optional(
    integer(65_535, {
      defaultText: 'unset (no worker metrics)',
      description: "port of the worker's `GET /metrics` (Rally's series and Temporal Core's), for example `9464`",
    }),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    url('http-url', {
      defaultText: 'unset (no tracing)',
      description:
        "base URL of an OpenTelemetry collector's OTLP/HTTP receiver, e.g. `http://otel-collector:4318`; " +
        'spans go to `<endpoint>/v1/traces`. The other standard `OTEL_*` variables ' +
        '(`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_SCHEDULE_DELAY`, …) apply as usual.',
    }),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(['http/protobuf', 'http/json'], { default: 'http/protobuf', description: 'or `http/json`' }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof observabilityVariables>>>;

export function observabilitySettings(values: Values) {
  return {
    observability: Object.freeze({
      metricsToken: values.RALLY_METRICS_TOKEN,
      workerMetricsPort: values.RALLY_WORKER_METRICS_PORT,
      otlpEndpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT,
      otlpProtocol: values.OTEL_EXPORTER_OTLP_PROTOCOL,
      logLevel: values.LOG_LEVEL,
    }),
  } satisfies Partial<Config>;
}
