import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { purgeIdempotencyKeys } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

describe('workflow purgeIdempotencyKeys', function () {
  this.timeout(60_000);

  it('deletes expired idempotency records and keeps live ones', async () => {
    const { db, temporal } = testEnvironment();
    await db.query(sql.typeAlias('void')`
      INSERT INTO idempotency_keys (caller_key, idempotency_key, request_method, request_path, request_fingerprint, expires_at)
      SELECT 'user:purge-test', 'expired-' || n, 'POST', '/v1/x', 'f', now() - interval '1 hour' FROM generate_series(1, 12) AS n
      UNION ALL
      SELECT 'user:purge-test', 'live-' || n, 'POST', '/v1/x', 'f', now() + interval '1 hour' FROM generate_series(1, 3) AS n
    `);
    const taskQueue = uniqueTaskQueue('purge');
    const worker = await createTestWorker(taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(purgeIdempotencyKeys, { taskQueue, workflowId: `purge-idempotency-keys-test-${taskQueue}` });
      const outcome = await handle.result();
      await captureHistory('purge-idempotency-keys', handle);
      return outcome;
    });
    expect(result.deleted).to.be.at.least(12);
    const left = await db.anyFirst(sql.type(z.object({ idempotency_key: z.string() }))`
      SELECT idempotency_key FROM idempotency_keys WHERE caller_key = 'user:purge-test' ORDER BY idempotency_key
    `);
    expect(left).to.deep.equal(['live-1', 'live-2', 'live-3']);
  });
});
