// A local HTTP server standing in for an integrator's webhook receiver. It keeps every request with its exact body bytes and headers, and answers as the test
// scripts it: per path, a list of behaviours used one per request (the last one repeats), e.g. ['500', '500', '500', '200'] or ['sleep:2000', '200']. The
// `ping` every new endpoint gets is kept apart (pings(), waitFor(…, 'pings')) and answered by scriptPings, 200 by default.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Webhook settings for tests: local receivers allowed, retries from 200 ms, 1 s timeout, quick deactivation. */
export const SHORT_WINDOWS = {
  RALLY_WEBHOOK_ALLOW_PRIVATE: 'true',
  RALLY_WEBHOOK_RETRY_INITIAL: '200ms',
  RALLY_WEBHOOK_TIMEOUT: '1s',
  RALLY_WEBHOOK_DEACTIVATE_AFTER: '1s',
};

/** One request as it arrived, with the status the receiver answered it with. */
export type ReceivedRequest = { path: string; headers: IncomingMessage['headers']; body: string; receivedAt: number; status: number };
const isPing = (request: { headers: IncomingMessage['headers'] }) => request.headers['x-rally-event'] === 'ping';

export type WebhookReceiver = {
  url(path: string): string;
  script(path: string, behaviours: string[]): void;
  scriptPings(path: string, behaviours: string[]): void;
  /** The requests to `path` (or all), pings left out. */
  received(path?: string): ReceivedRequest[];
  pings(path?: string): ReceivedRequest[];
  /** Resolves once `count` requests (or pings) to `path` arrived (or rejects after timeoutMs). */
  waitFor(path: string, count: number, timeoutMs?: number, kind?: 'events' | 'pings'): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
};

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const scripts = new Map<string, string[]>();
  const pingScripts = new Map<string, string[]>();
  const served = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const ping = isPing(request);
      const counter = ping ? `ping ${path}` : path;
      const index = served.get(counter) ?? 0;
      served.set(counter, index + 1);
      const behaviours = (ping ? pingScripts : scripts).get(path) ?? ['200'];
      const behaviour = behaviours[Math.min(index, behaviours.length - 1)]!;
      const answer = () => {
        const status = Number(behaviour.startsWith('sleep:') ? 200 : behaviour);
        requests.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now(), status });
        response.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${index + 1}: ${status}`);
      };
      if (behaviour.startsWith('sleep:')) setTimeout(answer, Number(behaviour.slice(6)));
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    script: (path, behaviours) => scripts.set(path, behaviours),
    scriptPings: (path, behaviours) => pingScripts.set(path, behaviours),
    received: (path) => requests.filter((request) => !isPing(request) && (path === undefined || request.path === path)),
    pings: (path) => requests.filter((request) => isPing(request) && (path === undefined || request.path === path)),
    async waitFor(path, count, timeoutMs = 30_000, kind = 'events') {
      const deadline = Date.now() + timeoutMs;
      const arrived = () => requests.filter((request) => request.path === path && isPing(request) === (kind === 'pings'));
      while (Date.now() < deadline) {
        if (arrived().length >= count) return arrived();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${path}: ${arrived().length} of ${count} ${kind} arrived within ${timeoutMs} ms`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
