// The reference the API is compared with: a bare node:http server answering every request with the same envelope as the API's GET /v1 ({data, meta:{request_id,
// timestamp}}) and the same headers (content-type, x-request-id, x-api-version, plus what node:http adds to both). Run as a child of the benchmark (see
// baseline.ts) so it has an event loop of its own, as the API process does. Argument: the JSON of `data`. Reports {port} over the IPC channel once listening.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const data: unknown = JSON.parse(process.argv[2] ?? '{}');

const server = createServer((_request, response) => {
  // Built per request like the API does, so both pay for a UUID, a timestamp and a stringify.
  const requestId = randomUUID();
  const body = JSON.stringify({ data, meta: { request_id: requestId, timestamp: new Date().toISOString() } });
  response.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    'X-API-Version': '1',
  });
  response.end(body);
});
// Same keep-alive settings as platform/http-server.ts, so node:http adds the same Keep-Alive header.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.requestTimeout = 60_000;

function stop(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The benchmark died without stopping us: do not linger.
process.on('disconnect', stop);

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
