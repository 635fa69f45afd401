// Every worker runs a dispatcher, and every dispatcher claims waiting webhook deliveries into leased batches that it sends itself. Dispatchers woken by the
// same NOTIFY claim at the same moment; a delivery claimed into two batches would be sent twice, and so would a batch whose lease two dispatchers took
// again. Claims run here from several connections at once, many times over, as several workers' dispatchers would.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { claimDeliveryBatches, reclaimExpiredBatches } from '../../../core/events/dispatch-queries.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';

const ENDPOINTS = 20;
const DELIVERIES_PER_ENDPOINT = 150;
const DISPATCHERS = 4;
// Small claims, so that thousands of them race for the same endpoints.
const CLAIM = { ceiling: 10_000, maxBatch: 3, limit: 3, leaseMs: 60_000 };

describe('claimDeliveryBatches (core/events/dispatch-queries.ts)', function () {
  this.timeout(120_000);
  let endpointIds: string[];

  before(async () => {
    const { db } = testEnvironment();
    const owner = await insertUserRow('delivery-claims');
    // Unroutable (TEST-NET-1), and every endpoint is deleted after the test with its deliveries.
    endpointIds = [
      ...(await db.manyFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO webhook_endpoints (user_id, url, events, secret_ciphertext, delivery_window)
      SELECT ${owner}, 'https://192.0.2.1/claims', ARRAY['signature.created'], '\\x00'::bytea, 10000 FROM generate_series(1, ${ENDPOINTS})
      RETURNING id`)),
    ];
    await db.query(sql.typeAlias('void')`
      WITH made AS (
        INSERT INTO events (type, actor_type, data)
        SELECT 'signature.created', 'system', '{}'::jsonb FROM generate_series(1, ${DELIVERIES_PER_ENDPOINT})
        RETURNING id
      )
      INSERT INTO webhook_deliveries (endpoint_id, event_id)
      SELECT endpoint.id, made.id FROM unnest(${sql.array(endpointIds, 'uuid')}) AS endpoint(id) CROSS JOIN made`);
  });

  after(async () => {
    await testEnvironment().db.query(sql.typeAlias('void')`DELETE FROM webhook_endpoints WHERE id = ANY(${sql.array(endpointIds, 'uuid')})`);
  });

  it('puts each waiting delivery into exactly one batch while several dispatchers claim at once', async () => {
    const { db } = testEnvironment();
    const claimUntilNoneWait = async () => {
      for (;;) {
        await db.transaction((tx) => claimDeliveryBatches(tx, CLAIM));
        const waiting = await db.oneFirst(sql.type(z.object({ waiting: z.number() }))`
          SELECT count(*)::int AS waiting FROM webhook_deliveries WHERE endpoint_id = ANY(${sql.array(endpointIds, 'uuid')}) AND started_at IS NULL`);
        if (waiting === 0) return;
      }
    };
    await Promise.all(Array.from({ length: DISPATCHERS }, claimUntilNoneWait));

    const { placed, distinct } = await db.one(sql.type(z.object({ placed: z.number(), distinct: z.number() }))`
      SELECT count(*)::int AS placed, count(DISTINCT delivery_id)::int AS distinct
      FROM webhook_delivery_batches b CROSS JOIN LATERAL unnest(b.delivery_ids) AS delivery_id
      WHERE b.endpoint_id = ANY(${sql.array(endpointIds, 'uuid')})`);
    expect(distinct, 'deliveries placed in a batch').to.equal(ENDPOINTS * DELIVERIES_PER_ENDPOINT);
    expect(placed, 'places in batches').to.equal(distinct);
  });

  it('leaves a live lease alone and gives each expired one to exactly one dispatcher, for as long as a new lease', async () => {
    const { db } = testEnvironment();
    const ours = sql.fragment`endpoint_id = ANY(${sql.array(endpointIds, 'uuid')})`;
    // A third of the batches as their dispatcher would leave them if it died mid-send.
    const expired = await db.anyFirst(sql.type(z.object({ id: z.string() }))`
      UPDATE webhook_delivery_batches SET lease_until = now() - interval '1 second'
      WHERE id IN (SELECT id FROM webhook_delivery_batches WHERE ${ours} ORDER BY id LIMIT ${Math.floor((ENDPOINTS * DELIVERIES_PER_ENDPOINT) / 9)})
      RETURNING id`);
    const taken: string[] = [];
    const reclaimUntilNone = async () => {
      for (;;) {
        const batches = await db.transaction((tx) => reclaimExpiredBatches(tx, { leaseMs: 60_000, limit: 5 }));
        if (batches.length === 0) return;
        taken.push(...batches.filter((batch) => endpointIds.includes(batch.endpoint_id)).map((batch) => batch.id));
      }
    };
    await Promise.all(Array.from({ length: DISPATCHERS }, reclaimUntilNone));

    expect(taken.length, 'batches taken again').to.equal(expired.length);
    expect([...new Set(taken)].sort()).to.deep.equal([...expired].sort());
    const { soonest } = await db.one(sql.type(z.object({ soonest: z.number() }))`
      SELECT extract(epoch FROM min(lease_until) - now())::float8 AS soonest FROM webhook_delivery_batches WHERE id = ANY(${sql.array(taken, 'uuid')})`);
    expect(soonest, 'seconds until the first new lease ends').to.be.greaterThan(50);
  });
});
