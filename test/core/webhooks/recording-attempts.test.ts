// Recording what an attempt got, when the endpoint was deleted while the attempt was in flight: the
// cascade has already taken its deliveries, and the record must neither fail nor bring them back.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { recordAttempt, type AttemptRecord } from '../../../core/webhooks/delivery-attempts.ts';
import { recordBatchAttempts } from '../../../core/webhooks/delivery-batches.ts';
import { testEnvironment } from '../../support/environment.ts';

const DAY_MS = 86_400_000;

function attemptOfDeletedDelivery(outcome: AttemptRecord['outcome']): AttemptRecord {
  return {
    deliveryId: randomUUID(),
    endpointId: randomUUID(),
    attempt: 1,
    attemptedAt: new Date().toISOString(),
    outcome,
    statusCode: outcome === 'delivered' ? 200 : 500,
    latencyMs: 12,
    error: outcome === 'delivered' ? null : 'HTTP 500',
    excerpt: null,
  };
}

async function attemptsOf(deliveryId: string): Promise<number> {
  return testEnvironment().db.oneFirst(
    sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM webhook_delivery_attempts WHERE delivery_id = ${deliveryId}`,
  );
}

describe('recording webhook attempts of a deleted endpoint', () => {
  it('records nothing for a batch whose deliveries are gone, and does not fail', async () => {
    const delivered = attemptOfDeletedDelivery('delivered');
    const failed = { ...attemptOfDeletedDelivery('retrying'), endpointId: delivered.endpointId };
    await recordBatchAttempts(testEnvironment().db, { endpointId: delivered.endpointId, attempts: [delivered, failed], window: { from: 8, to: 4 } }, DAY_MS);
    expect(await attemptsOf(delivered.deliveryId)).to.equal(0);
    expect(await attemptsOf(failed.deliveryId)).to.equal(0);
  });

  it('records nothing for a single attempt whose delivery is gone, and does not fail', async () => {
    const record = attemptOfDeletedDelivery('failed');
    await recordAttempt(testEnvironment().db, record, DAY_MS);
    expect(await attemptsOf(record.deliveryId)).to.equal(0);
  });
});
