// The webhook receiver of the benchmarks: a node:http server in a process of its own (this file run as a child), answering 200 at once, after `delays[path]`
// ms, or 500 on a `failing` path; in the harness's process it would share a thread with the signing rows' load generator, and deliveries would wait for the
// harness instead of the pipeline.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnPrefixed, stopChild } from '../lib/child-process.ts';

export type Receiver = {
  url(path: string): string;
  /** Event id → when it first arrived (this process's performance.now() clock). */
  arrivals: Map<string, number>;
  /** Event id → milliseconds from the event's own created_at to its first arrival (wall clock, same host). */
  sinceEvent: Map<string, number>;
  /** Event id → the delivery ids it arrived with: a repeat with the same id is at-least-once, a second id a duplicate. */
  deliveryIds: Map<string, Set<string>>;
  /** Arrivals of an event seen before (any delivery id). */
  repeats(): number;
  arrivedOn(path: string): number;
  close(): Promise<void>;
};

/** One request as the child reports it; `at` is epoch milliseconds with sub-millisecond precision. */
type Arrival = { path: string; at: number; id?: string; sinceEvent?: number; deliveryId?: string };
type Setup = { delays: Record<string, number>; failing: string[] };
const FLUSH_MS = 20;

function serve({ delays, failing }: Setup): void {
  let pending: Arrival[] = [];
  setInterval(() => {
    if (pending.length === 0) return;
    process.send?.(pending);
    pending = [];
  }, FLUSH_MS);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const answer = () => {
        const at = performance.timeOrigin + performance.now();
        if (failing.includes(path)) {
          pending.push({ path, at });
          response.writeHead(500).end('failing on purpose');
          return;
        }
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        const deliveryId = String(request.headers['x-rally-delivery-id']);
        pending.push({ path, at, id: event.id, sinceEvent: Date.now() - Date.parse(event.created_at), deliveryId });
        response.writeHead(200).end('ok');
      };
      const delay = delays[path];
      if (delay) setTimeout(answer, delay);
      else answer();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
}

/**
 * Starts the receiver process; resolves once it listens.
 * Every request is reported back (batched over IPC, with the child's clock) and mirrored here: when each event
 * first arrived, how long after the event's created_at, under which delivery ids, and requests per path.
 */
export async function startReceiver(delays: Record<string, number> = {}, failing: readonly string[] = []): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const sinceEvent = new Map<string, number>();
  const deliveryIds = new Map<string, Set<string>>();
  const perPath = new Map<string, number>();
  let repeats = 0;
  const child = spawnPrefixed({ name: 'receiver', command: process.execPath, args: [import.meta.filename, JSON.stringify({ delays, failing })], ipc: true });
  const port = await new Promise<number>((resolve, reject) => {
    child.process.on('message', (message: { port: number } | Arrival[]) => {
      if (!Array.isArray(message)) return resolve(message.port);
      for (const arrival of message) {
        perPath.set(arrival.path, (perPath.get(arrival.path) ?? 0) + 1);
        if (arrival.id === undefined) continue;
        const ids = deliveryIds.get(arrival.id) ?? new Set<string>();
        ids.add(arrival.deliveryId!);
        deliveryIds.set(arrival.id, ids);
        if (arrivals.has(arrival.id)) repeats += 1;
        else {
          arrivals.set(arrival.id, arrival.at - performance.timeOrigin);
          sinceEvent.set(arrival.id, arrival.sinceEvent!);
        }
      }
    });
    void child.exited.then((exit) => reject(new Error(`the webhook receiver exited during start-up (code ${exit.code})`)));
  });
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    arrivals,
    sinceEvent,
    deliveryIds,
    repeats: () => repeats,
    arrivedOn: (path) => perPath.get(path) ?? 0,
    close: async () => {
      await stopChild(child, 5_000);
    },
  };
}

if (process.argv[1] === import.meta.filename && process.send) serve(JSON.parse(process.argv[2]!) as Setup);
