// How far behind the outbox and the webhook queue are, read at each metrics scrape (platform/metrics.ts).
// Each query walks an index to the first waiting row (the log's order, or a partial index), so a scrape stays cheap.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { consumerLagSeconds, DISPATCHER } from './outbox-reader.ts';

const Value = z.object({ value: z.number() });

/** Seconds since the oldest undispatched outbox event was written; 0 when none waits. */
export function outboxLagSeconds(db: CommonQueryMethods): Promise<number> {
  return consumerLagSeconds(db, DISPATCHER);
}

/** Webhook deliveries whose workflow has not been started (waiting for a slot at their endpoint). */
export function deliveriesWaiting(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(Value)`SELECT count(*)::float8 AS value FROM webhook_deliveries WHERE started_at IS NULL`);
}

/** Active endpoints whose attempts have failed, without a success in between, for longer than `minutes`. */
export function endpointsFailingFor(db: CommonQueryMethods, minutes: number): Promise<number> {
  return db.oneFirst(sql.type(Value)`
    SELECT count(*)::float8 AS value FROM webhook_endpoints
    WHERE is_active AND failing_since IS NOT NULL AND failing_since < now() - make_interval(mins => ${minutes})
  `);
}
