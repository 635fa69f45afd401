// Serving /metrics: the bearer-token check both processes use, and the worker's own small HTTP
// server. The worker's answer is Rally's registry followed by the Temporal Core SDK's series, which
// Core's Prometheus exporter serves on a loopback port of its own: scrapers see one port, one token.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { oncePerScrapeWindow, renderMetrics } from './metrics.ts';

/** Constant-time check of `Authorization: Bearer <token>`; without a configured token everyone may read. */
export function metricsAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  // Hashing first gives equal lengths, so the comparison time says nothing about the token's length.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

export type MetricsServerOptions = {
  port: number;
  token: string | undefined;
  /** Extra exposition text appended to Rally's own (the Temporal Core exporter's), fetched with it at most once a second. */
  extra?: () => Promise<string>;
};

const UNAUTHORIZED = JSON.stringify({
  type: 'about:blank',
  title: 'Unauthorized',
  status: 401,
  code: 'unauthorized',
  detail: 'GET /metrics needs Authorization: Bearer <RALLY_METRICS_TOKEN>.',
  message: 'GET /metrics needs Authorization: Bearer <RALLY_METRICS_TOKEN>.',
});

export async function startMetricsServer(options: MetricsServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  const answer = oncePerScrapeWindow(async () => {
    const [own, extra] = await Promise.all([renderMetrics(), options.extra?.().catch(() => '') ?? '']);
    return { contentType: own.contentType, body: extra ? `${own.body}\n${extra}` : own.body };
  });
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    if (!metricsAuthorized(request.headers.authorization, options.token)) {
      response.writeHead(401, { 'content-type': 'application/problem+json', 'www-authenticate': 'Bearer' }).end(UNAUTHORIZED);
      return;
    }
    void answer()
      .then(({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body))
      .catch((error: Error) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${error.message}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads another Prometheus endpoint's text (Temporal Core's exporter on loopback). */
export async function fetchExposition(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return response.ok ? response.text() : '';
}

/** A loopback port free right now, for a helper server this process starts next (Core's exporter). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
