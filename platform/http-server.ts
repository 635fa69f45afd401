// Starts the HTTP server for an app and stops it gracefully: stop accepting, let in-flight requests
// finish (bounded), then close idle keep-alive sockets.
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';

export type RunningServer = { server: Server; port: number; close(timeoutMs?: number): Promise<void> };

export async function listen(app: Koa<any>, port: number, host = '0.0.0.0'): Promise<RunningServer> {
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    port: boundPort,
    async close(timeoutMs = 10_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
      await closed;
      clearTimeout(deadline);
    },
  };
}
