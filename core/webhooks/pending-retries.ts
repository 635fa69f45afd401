// Deliveries whose first attempt failed, waiting for their retry workflow (webhook_retries_pending): written with the attempt's outcome by the dispatcher
// (delivery-batches.ts), read here by its hand-over step, and forgotten once Temporal accepted the workflow. While Temporal is away they wait, and the first
// attempts of other deliveries go on without it.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';

export const PendingRetry = z.object({
  delivery_id: z.string(),
  endpoint_id: z.string(),
  /** When its second attempt is due; the workflow waits for what is left of it. */
  retry_at: z.string(),
  trace_context: z.record(z.string(), z.string()).nullable(),
  /** What the Web UI shows of the retry workflow (memo) and searches it by. */
  endpoint_url: z.string(),
  event_type: z.string(),
  petition_id: z.string().nullable(),
  petition_title: z.string().nullable(),
});
export type PendingRetry = z.infer<typeof PendingRetry>;

/** The oldest waiting hand-overs, locked until the caller's transaction ends (SKIP LOCKED: dispatchers share the work). */
export function pendingRetries(tx: DatabaseTransactionConnection, limit: number) {
  return tx.any(sql.type(PendingRetry)`
    SELECT r.delivery_id, d.endpoint_id, r.retry_at, r.trace_context, ep.url AS endpoint_url, e.type AS event_type, e.petition_id, p.title AS petition_title
    FROM webhook_retries_pending r
    JOIN webhook_deliveries d ON d.id = r.delivery_id
    JOIN webhook_endpoints ep ON ep.id = d.endpoint_id
    JOIN events e ON e.id = d.event_id
    LEFT JOIN petitions p ON p.id = e.petition_id
    ORDER BY r.created_at LIMIT ${limit}
    FOR UPDATE OF r SKIP LOCKED
  `);
}

/** Temporal holds their retry workflows: nothing is left to do for these here. */
export async function forgetHandedOverRetries(db: CommonQueryMethods, deliveryIds: readonly string[]): Promise<void> {
  await db.query(sql.typeAlias('void')`DELETE FROM webhook_retries_pending WHERE delivery_id = ANY(${sql.array([...deliveryIds], 'uuid')})`);
}
