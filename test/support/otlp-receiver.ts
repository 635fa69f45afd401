// A local OpenTelemetry collector for tests: it accepts OTLP/HTTP trace exports (POST /v1/traces) in
// both encodings a real collector takes, protobuf and JSON, and keeps every span with its service.
// Protobuf is decoded with the OTLP message definitions the exporters themselves are built from.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type ProtobufRequest = { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: object): OtlpExport };
const otlpProto = (
  createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtobufRequest } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** Protobuf body → the same shape as OTLP/JSON (ids as hex, kinds as numbers). */
function decodeProtobuf(body: Buffer): OtlpExport {
  const message = otlpProto.decode(body);
  const json = otlpProto.toObject(message, { longs: String, enums: Number, bytes: String });
  const hex = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('hex');
  for (const resourceSpan of json.resourceSpans ?? []) {
    for (const scope of resourceSpan.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) Object.assign(span, { traceId: hex(span.traceId), spanId: hex(span.spanId), parentSpanId: hex(span.parentSpanId) });
    }
  }
  return json;
}

export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
};

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpExport = {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[] }[];
  }[];
};

const plain = (value: OtlpValue) => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
const attributes = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((attribute) => [attribute.key, plain(attribute.value)]));

export type OtlpReceiver = { endpoint: string; spans(): ReceivedSpan[]; encodings(): Set<string>; close(): Promise<void> };

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const encodings = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = String(request.headers['content-type']);
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !/json|protobuf/.test(type)) {
        response.writeHead(415).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = type.includes('protobuf') ? decodeProtobuf(raw) : (JSON.parse(raw.toString('utf8')) as OtlpExport);
      encodings.add(type.includes('protobuf') ? 'protobuf' : 'json');
      for (const resourceSpan of body.resourceSpans ?? []) {
        const service = String(attributes(resourceSpan.resource?.attributes)['service.name']);
        for (const scope of resourceSpan.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: attributes(span.attributes),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    encodings: () => new Set(encodings),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
