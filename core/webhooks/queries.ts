// SQL for webhook endpoints and their deliveries. Every statement names the owner, so one user can
// never see or touch another's endpoints (they get 404).
import type { CommonQueryMethods } from 'slonik';
import { LimitReached } from '../errors/domain-error.ts';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { keysetPage, listOwnedBy, recencyKey } from '../pagination/keyset.ts';

export const EndpointRow = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  is_active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  deactivated_at: z.string().nullable(),
  deactivation_reason: z.string().nullable(),
  previous_secret_expires_at: z.string().nullable(),
  platform_wide: z.boolean(),
});
export type EndpointRow = z.infer<typeof EndpointRow>;

const COLUMNS = sql.fragment`id, url, events, is_active, created_at, updated_at, deactivated_at,
  deactivation_reason, previous_secret_expires_at, platform_wide`;

/** Endpoints one user may have: each one multiplies every event into deliveries. */
export const MAX_ENDPOINTS_PER_USER = 20;

export function insertEndpoint(
  db: CommonQueryMethods,
  input: { userId: string; url: string; events: readonly string[]; sealedSecret: Buffer; platformWide: boolean },
) {
  return db.transaction(async (tx) => {
    // The owner's row serialises concurrent creates, so the cap holds.
    await tx.query(sql.typeAlias('void')`SELECT FROM users WHERE id = ${input.userId} FOR UPDATE`);
    const count = await tx.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM webhook_endpoints WHERE user_id = ${input.userId}
    `);
    if (count >= MAX_ENDPOINTS_PER_USER) {
      throw new LimitReached(`You have ${MAX_ENDPOINTS_PER_USER} webhook endpoints, the most one account may have; delete one first.`);
    }
    return tx.one(sql.type(EndpointRow)`
      INSERT INTO webhook_endpoints (user_id, url, events, secret_ciphertext, platform_wide)
      VALUES (${input.userId}, ${input.url}, ${sql.array(input.events, 'text')}, ${sql.binary(input.sealedSecret)}, ${input.platformWide})
      RETURNING ${COLUMNS}
    `);
  });
}

export function listEndpoints(db: CommonQueryMethods, userId: string, after: readonly [string, string] | undefined, limit: number) {
  return listOwnedBy(db, EndpointRow, { table: 'webhook_endpoints', columns: COLUMNS }, userId, after, limit);
}

export function findEndpoint(db: CommonQueryMethods, userId: string, id: string) {
  return db.maybeOne(sql.type(EndpointRow)`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ${id} AND user_id = ${userId}`);
}

/** Turning an endpoint back on clears its failure streak, so it gets a fresh deactivation window. */
export function updateEndpoint(db: CommonQueryMethods, userId: string, id: string, changes: { url?: string; events?: readonly string[]; isActive?: boolean }) {
  const activation =
    changes.isActive === undefined
      ? sql.fragment``
      : changes.isActive
        ? sql.fragment`, is_active = true, deactivated_at = NULL, deactivation_reason = NULL, failing_since = NULL`
        : sql.fragment`, is_active = false`;
  return db.maybeOne(sql.type(EndpointRow)`
    UPDATE webhook_endpoints
    SET url = COALESCE(${changes.url ?? null}, url),
        events = COALESCE(${changes.events ? sql.array(changes.events, 'text') : null}, events),
        updated_at = now() ${activation}
    WHERE id = ${id} AND user_id = ${userId}
    RETURNING ${COLUMNS}
  `);
}

export async function deleteEndpoint(db: CommonQueryMethods, userId: string, id: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ id: z.string() }))`DELETE FROM webhook_endpoints WHERE id = ${id} AND user_id = ${userId} RETURNING id`);
  return row !== null;
}

/** The current secret becomes the previous one, still signing until the grace period ends. */
export function rotateSecret(db: CommonQueryMethods, userId: string, id: string, sealedSecret: Buffer, gracePeriodMs: number) {
  return db.maybeOne(sql.type(EndpointRow)`
    UPDATE webhook_endpoints
    SET previous_secret_ciphertext = secret_ciphertext, secret_ciphertext = ${sql.binary(sealedSecret)},
        previous_secret_expires_at = now() + make_interval(secs => ${gracePeriodMs / 1000}), updated_at = now()
    WHERE id = ${id} AND user_id = ${userId}
    RETURNING ${COLUMNS}
  `);
}

export const DeliveryRow = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  cause: z.enum(['event', 'redelivery', 'replay', 'ping']),
  status: z.enum(['pending', 'retrying', 'delivered', 'failed']),
  attempt_count: z.number(),
  last_status_code: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type DeliveryRow = z.infer<typeof DeliveryRow>;

const DELIVERY_COLUMNS = sql.fragment`d.id, d.endpoint_id, d.event_id, e.type AS event_type, d.cause, d.status, d.attempt_count,
  d.last_status_code, d.last_error, d.created_at, d.finished_at`;

export function listDeliveries(db: CommonQueryMethods, endpointId: string, filter: { status?: string; after?: readonly [string, string]; limit: number }) {
  const keyset = keysetPage(recencyKey('d'), filter.after, 'desc', filter.limit);
  return db.any(sql.type(DeliveryRow)`
    SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE d.endpoint_id = ${endpointId}
      ${filter.status ? sql.fragment`AND d.status = ${filter.status}` : sql.fragment``}
      AND ${keyset.where}
    ${keyset.orderAndLimit}
  `);
}

export function findDelivery(db: CommonQueryMethods, endpointId: string, deliveryId: string) {
  return db.maybeOne(sql.type(DeliveryRow)`
    SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE d.id = ${deliveryId} AND d.endpoint_id = ${endpointId}
  `);
}

export const AttemptRow = z.object({
  attempt: z.number(),
  attempted_at: z.string(),
  status_code: z.number().nullable(),
  latency_ms: z.number(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
});
export type AttemptRow = z.infer<typeof AttemptRow>;

export function listAttempts(db: CommonQueryMethods, deliveryId: string) {
  return db.any(sql.type(AttemptRow)`
    SELECT attempt, attempted_at, status_code, latency_ms, error, response_excerpt
    FROM webhook_delivery_attempts WHERE delivery_id = ${deliveryId} ORDER BY attempt
  `);
}
