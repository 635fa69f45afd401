// Starts the HTTP server for an app and stops it gracefully: stop accepting, let in-flight requests
// finish (bounded), then close idle keep-alive sockets. Requests Node's parser refuses before any
// middleware sees them (headers or URL too long, raw bytes in the path) still get a problem+json.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

export type RunningServer = { server: Server; port: number; close(timeoutMs?: number): Promise<void> };

/** How a refused request is described: the problem type base URL and headers every answer carries. */
export type ClientErrorAnswers = { problemTypeBase: string; headers?: Record<string, string> };

function answerClientError(error: Error & { code?: string }, socket: Duplex, answers: ClientErrorAnswers): void {
  if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const [status, slug, title, detail] = tooLarge
    ? [431, 'request-header-fields-too-large', 'Request header fields too large', 'The request line or headers are longer than this server reads.']
    : [400, 'bad-request', 'Bad request', 'The request could not be parsed as HTTP/1.1.'];
  const body = JSON.stringify({ type: `${answers.problemTypeBase}${slug}`, title, status, code: slug.replaceAll('-', '_'), detail, message: detail });
  const headers = { ...answers.headers, 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${title}\r\n${head}\r\n${body}`);
}

/** `app`: a Koa app, or anything else that hands out a request handler (the identity provider's, rebuilt as its keys rotate). */
export async function listen(app: { callback(): RequestListener }, port: number, host = '0.0.0.0', clientErrors?: ClientErrorAnswers): Promise<RunningServer> {
  const server = createServer(app.callback());
  if (clientErrors) server.on('clientError', (error: Error, socket: Duplex) => answerClientError(error, socket, clientErrors));
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
