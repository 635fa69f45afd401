// The `ping` event: a signed test delivery to one endpoint, sent when it is created (as GitHub does) and on POST /v1/webhooks/{id}/test. It goes through the
// outbox and the delivery path like any event, but no endpoint subscribes to `ping`, so the dispatcher passes its event over: only the delivery written here
// sends it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { RateLimited } from '../errors/domain-error.ts';
import { insertEvent, NOTIFY_DISPATCHER, type Actor } from '../events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { AttemptRow, DeliveryRow } from './queries.ts';

/** Sent to one endpoint only; no endpoint subscribes to it. */
export const PING_EVENT = 'ping';
/** Test pings per endpoint per hour: each one is a request Rally makes to an address its owner chose. */
export const PINGS_PER_HOUR = 30;

export type PingedEndpoint = { id: string; url: string; events: readonly string[] };

/**
 * Writes a ping event and its delivery to `endpoint` in the caller's transaction, which should hold
 * the endpoint's row (created or locked), and wakes the dispatcher at commit. Returns the delivery.
 */
export async function queuePing(tx: CommonQueryMethods, endpoint: PingedEndpoint, actor: Actor) {
  const eventId = await tx.oneFirst(
    sql.type(z.object({ id: z.string() }))`${insertEvent({
      type: sql.fragment`${PING_EVENT}::text`,
      actorType: sql.fragment`${actor.type}::text`,
      actorId: sql.fragment`${actor.id}::text`,
      petitionId: sql.fragment`NULL::uuid`,
      data: sql.fragment`${sql.jsonb({ webhook_id: endpoint.id, url: endpoint.url, events: [...endpoint.events] })}`,
    })}`,
  );
  const delivery = await tx.one(sql.type(DeliveryRow)`
    WITH queued AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, cause) VALUES (${endpoint.id}, ${eventId}, 'ping')
      RETURNING id, endpoint_id, event_id, cause, status, attempt_count, last_status_code, last_error, created_at, finished_at
    )
    SELECT q.id, q.endpoint_id, q.event_id, ${PING_EVENT}::text AS event_type, q.cause, q.status, q.attempt_count,
           q.last_status_code, q.last_error, q.created_at, q.finished_at
    FROM queued q
  `);
  await tx.query(sql.typeAlias('void')`SELECT FROM ${NOTIFY_DISPATCHER}`);
  return delivery;
}

/** Locks the endpoint's row, so concurrent calls count one another, and refuses a ping beyond PINGS_PER_HOUR. */
export async function assertPingAllowed(tx: CommonQueryMethods, endpointId: string): Promise<void> {
  await tx.query(sql.typeAlias('void')`SELECT FROM webhook_endpoints WHERE id = ${endpointId} FOR UPDATE`);
  const recent = await tx.one(sql.type(z.object({ count: z.number(), retry_after: z.number().nullable() }))`
    SELECT count(*)::int AS count, ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int AS retry_after
    FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND cause = 'ping' AND created_at > now() - interval '1 hour'
  `);
  if (recent.count >= PINGS_PER_HOUR) {
    throw new RateLimited(`An endpoint may be pinged ${PINGS_PER_HOUR} times an hour.`, {
      code: 'ping_limit',
      retryAfterSeconds: Math.max(1, recent.retry_after ?? 3600),
    });
  }
}

/**
 * The first attempt of a delivery, once the worker recorded it, or null after `timeoutMs`. A wait for
 * the caller's answer only: the delivery itself is durable and goes on (with its retries) regardless.
 */
export async function awaitFirstAttempt(db: CommonQueryMethods, deliveryId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const attempt = await db.maybeOne(sql.type(AttemptRow)`
      SELECT attempt, attempted_at, status_code, latency_ms, error, response_excerpt
      FROM webhook_delivery_attempts WHERE delivery_id = ${deliveryId} AND attempt = 1
    `);
    if (attempt || Date.now() >= deadline) return attempt;
    await sleep(100);
  }
}
