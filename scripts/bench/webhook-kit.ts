// Pieces of the webhook benchmark: the receiver (receiver.ts, in a process of its own), a Rally worker
// process (with its dispatcher), bench users, petitions and endpoints made straight in SQL, events
// written through the outbox's insert with their commit times.
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { loadConfig } from '../../platform/config.ts';
import { createSecretBox, generateSigningSecret } from '../../core/webhooks/signing-secrets.ts';
import { insertEvent, NOTIFY_DISPATCHER } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { spawnPrefixed, stopChild, type PrefixedChild } from '../lib/child-process.ts';
import { BENCH_ENCRYPTION_KEY } from './environment.ts';
import type { BenchEnvironment } from './scenario.ts';
import { workflowBundle } from './workflow-bundle.ts';
import { nodeArguments } from '../lib/topology-processes.ts';

export { startReceiver, type Receiver } from './receiver.ts';

/**
 * Production's settings for a worker: NODE_ENV=production with secrets of its own (production refuses
 * the public development ones): for rows whose worker opens nothing the API sealed (no deliveries).
 */
/** NODE_ENV=production with secrets of its own, as production refuses the public development ones. */
/** Production mode with secrets of its own, but the bench's encryption key, so it opens what the other processes sealed. */
export const productionServiceEnv = (): NodeJS.ProcessEnv => ({
  NODE_ENV: 'production',
  RALLY_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
  RALLY_MEDIA_SIGNING_KEY: randomBytes(32).toString('hex'),
  OIDC_CLIENT_SECRET: randomBytes(32).toString('hex'),
  RALLY_WEBHOOK_ALLOW_PRIVATE: undefined,
});

/** What the bench's processes seal webhook signing secrets with. */
export const benchSecretBox = () => createSecretBox(loadConfig({ RALLY_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY }).encryptionKey);

/**
 * A worker process on a task queue of its own, loading the prepared workflow bundle as production
 * does; resolves once polling. `production: true` runs it as production does in full (NODE_ENV,
 * secrets of its own): production refuses to deliver webhooks to the bench's receiver on loopback,
 * so rows that deliver run it in development mode, whose one difference in the worker is that guard.
 */
export async function startRallyWorker(env: BenchEnvironment, taskQueue: string, options: { production?: boolean } = {}): Promise<PrefixedChild> {
  const node = await env.nodeArgs();
  const mode = options.production ? productionServiceEnv() : { RALLY_WEBHOOK_ALLOW_PRIVATE: 'true' };
  const merged: NodeJS.ProcessEnv = { ...env.serviceEnv, RALLY_TASK_QUEUE: taskQueue, RALLY_WORKFLOW_BUNDLE: await workflowBundle(env.log), ...mode };
  const child = spawnPrefixed({
    name: options.production ? 'worker-production' : 'worker',
    command: process.execPath,
    args: [...node.args, ...nodeArguments('worker')],
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
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
  const box = benchSecretBox();
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

/**
 * Writes `count` events in transactions of `perTransaction`, each transaction one statement through
 * the outbox's own insert (as the signing statement writes a batch's events) and one NOTIFY; returns
 * each event's commit time. One statement per event cost the harness and PostgreSQL about a third
 * of the pipeline's CPU, which is not the pipeline's.
 */
export async function emitEvents(db: DatabasePool, petitionId: string, count: number, perTransaction = 50): Promise<Map<string, number>> {
  const committed = new Map<string, number>();
  const batches = Array.from({ length: Math.ceil(count / perTransaction) }, (_, index) => Math.min(perTransaction, count - index * perTransaction));
  for (let index = 0; index < batches.length; index += 4) {
    await Promise.all(
      batches.slice(index, index + 4).map(async (size) => {
        const ids = await db.transaction(async (tx) => {
          const made = await tx.anyFirst(
            sql.type(z.object({ id: z.string() }))`${insertEvent(
              {
                type: sql.fragment`${'signature.created'}::text`,
                actorType: sql.fragment`${'system'}::text`,
                actorId: sql.fragment`NULL::text`,
                petitionId: sql.fragment`${petitionId}::uuid`,
                data: sql.fragment`jsonb_build_object('petition_id', ${petitionId}::text, 'n', n)`,
              },
              sql.fragment`generate_series(0, ${size - 1}) AS n ORDER BY n`,
            )}`,
          );
          await tx.query(sql.typeAlias('void')`SELECT FROM ${NOTIFY_DISPATCHER}`);
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
    const waiting = await db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM events e
      JOIN event_consumers c ON c.name = 'dispatcher' AND (e.transaction_id, e.position) > (c.transaction_id, c.position)`);
    if (waiting === 0) return;
    if (performance.now() > deadline) throw new Error(`the outbox still holds ${waiting} events`);
    if (!reported) log(`waiting for the dispatcher to work through ${waiting} earlier events`);
    reported = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
