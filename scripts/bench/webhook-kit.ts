// Pieces of the webhook benchmark: a receiver that timestamps each event's arrival, a Rally worker
// process (with its dispatcher), bench users, petitions and endpoints made straight in SQL, events
// written through recordEvent with their commit times.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { loadConfig } from '../../platform/config.ts';
import { createSecretBox, generateSigningSecret } from '../../core/webhooks/signing-secrets.ts';
import { recordEvent } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { spawnPrefixed, stopChild, type PrefixedChild } from '../lib/child-process.ts';
import type { BenchEnvironment } from './scenario.ts';

export type Receiver = {
  url(path: string): string;
  /** Event id → when it first arrived (performance.now()). */
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

/** Answers 200 at once, or after `delays[path]` ms, or 500 on a `failing` path; records when each event id first arrived. */
export async function startReceiver(delays: Record<string, number> = {}, failing: readonly string[] = []): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const sinceEvent = new Map<string, number>();
  const deliveryIds = new Map<string, Set<string>>();
  let repeats = 0;
  const perPath = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const answer = () => {
        perPath.set(path, (perPath.get(path) ?? 0) + 1);
        if (failing.includes(path)) {
          response.writeHead(500).end('failing on purpose');
          return;
        }
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        const ids = deliveryIds.get(event.id) ?? new Set<string>();
        ids.add(String(request.headers['x-rally-delivery-id']));
        deliveryIds.set(event.id, ids);
        if (arrivals.has(event.id)) repeats += 1;
        else {
          arrivals.set(event.id, performance.now());
          sinceEvent.set(event.id, Date.now() - Date.parse(event.created_at));
        }
        response.writeHead(200).end('ok');
      };
      const delay = delays[path];
      if (delay) setTimeout(answer, delay);
      else answer();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    arrivals,
    sinceEvent,
    deliveryIds,
    repeats: () => repeats,
    arrivedOn: (path) => perPath.get(path) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A worker process as `npm run worker` runs it, on a task queue of its own; resolves once polling. */
export async function startRallyWorker(env: BenchEnvironment, taskQueue: string): Promise<PrefixedChild> {
  const node = await env.nodeArgs();
  const child = spawnPrefixed({
    name: 'worker',
    command: process.execPath,
    args: [...node.args, 'worker/main.ts'],
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    env: { ...env.serviceEnv, RALLY_TASK_QUEUE: taskQueue, RALLY_WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  env.meter.register('worker', child.process.pid, node.inspectPort);
  void child.exited.then(() => env.meter.unregister(child.process.pid));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not start within 60 s')), 60_000);
    child.process.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"polling"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void child.exited.then(() => reject(new Error('the worker exited during start-up')));
  });
  return child;
}
export const stopRallyWorker = (child: PrefixedChild) => stopChild(child, 15_000);

/** A user owning one active petition, and `urls.length` endpoints subscribed to signature.created. */
export async function seedOwner(db: DatabasePool, urls: string[]): Promise<{ userId: string; petitionId: string }> {
  const tag = randomUUID().slice(0, 8);
  const userId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
    VALUES ('bench', ${tag}, ${`bench-${tag}@example.test`}, 'Bench owner', ${`bench-${tag}`}) RETURNING id`);
  const petitionId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO petitions (slug, title, description, creator_id, status)
    VALUES (${`bench-${tag}`}, 'Webhook benchmark petition', ${'x'.repeat(60)}, ${userId}, 'active') RETURNING id`);
  const box = createSecretBox(loadConfig({}).encryptionKey);
  for (const url of urls) {
    await db.query(sql.typeAlias('void')`
      INSERT INTO webhook_endpoints (user_id, url, events, secret_ciphertext)
      VALUES (${userId}, ${url}, ${sql.array(['signature.created'], 'text')}, ${sql.binary(box.seal(generateSigningSecret()))})`);
  }
  return { userId, petitionId };
}

/** Removes what a run made; deleting the endpoints drops their deliveries, so queued ones are not sent. */
export async function removeOwner(db: DatabasePool, userId: string): Promise<void> {
  await db.query(sql.typeAlias('void')`DELETE FROM webhook_endpoints WHERE user_id = ${userId}`);
}

/** Writes `count` events in transactions of `perTransaction`; returns each event's commit time. */
export async function emitEvents(db: DatabasePool, petitionId: string, count: number, perTransaction = 50): Promise<Map<string, number>> {
  const committed = new Map<string, number>();
  const batches = Array.from({ length: Math.ceil(count / perTransaction) }, (_, index) => Math.min(perTransaction, count - index * perTransaction));
  for (let index = 0; index < batches.length; index += 4) {
    await Promise.all(
      batches.slice(index, index + 4).map(async (size) => {
        const ids = await db.transaction(async (tx) => {
          const made: string[] = [];
          for (let n = 0; n < size; n += 1)
            made.push(
              await recordEvent(tx, { type: 'signature.created', actor: { type: 'system', id: null }, petitionId, data: { petition_id: petitionId, n } }),
            );
          return made;
        });
        const at = performance.now();
        for (const id of ids) committed.set(id, at);
      }),
    );
  }
  return committed;
}

/** Other scenarios leave events in the kept bench database: the dispatcher works through them first. */
export async function waitForEmptyOutbox(db: DatabasePool, log: (line: string) => void, limitMs = 180_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  let reported = false;
  for (;;) {
    const waiting = await db.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM events WHERE dispatched_at IS NULL`);
    if (waiting === 0) return;
    if (performance.now() > deadline) throw new Error(`the outbox still holds ${waiting} events`);
    if (!reported) log(`waiting for the dispatcher to work through ${waiting} earlier events`);
    reported = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
