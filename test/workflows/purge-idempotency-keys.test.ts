import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { purgeIdempotencyKeys } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow } from '../support/events.ts';
import { createTestUser } from '../support/identity.ts';
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
      await captureHistory('purge-idempotency-keys-with-auth-records', handle);
      return outcome;
    });
    expect(result.deleted).to.be.at.least(12);
    const left = await db.anyFirst(sql.type(z.object({ idempotency_key: z.string() }))`
      SELECT idempotency_key FROM idempotency_keys WHERE caller_key = 'user:purge-test' ORDER BY idempotency_key
    `);
    expect(left).to.deep.equal(['live-1', 'live-2', 'live-3']);
  });

  it('deletes old login failures and attempts and expired refresh tokens, keeping current ones', async () => {
    const { db, temporal } = testEnvironment();
    const user = await createTestUser();
    await db.query(sql.typeAlias('void')`
      INSERT INTO login_failures (subject, failed_at) VALUES ('purge-test:old', now() - interval '2 days'), ('purge-test:new', now())
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO login_attempts (subject, window_start) VALUES ('purge-test:old', now() - interval '2 days'), ('purge-test:new', now())
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO refresh_tokens (token_hash, user_id, expires_at)
      VALUES (${sql.binary(Buffer.from('purge-test-expired'))}, ${user.id}, now() - interval '1 minute'),
             (${sql.binary(Buffer.from('purge-test-live'))}, ${user.id}, now() + interval '1 day')
    `);
    const taskQueue = uniqueTaskQueue('purge-auth');
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(temporal.client.workflow.execute(purgeIdempotencyKeys, { taskQueue, workflowId: `purge-auth-test-${taskQueue}` }));
    const subjects = await db.anyFirst(sql.type(z.object({ subject: z.string() }))`
      SELECT subject FROM login_failures WHERE subject LIKE 'purge-test:%' UNION ALL SELECT subject FROM login_attempts WHERE subject LIKE 'purge-test:%'
    `);
    expect(subjects).to.deep.equal(['purge-test:new', 'purge-test:new']);
    const tokens = await db.anyFirst(
      sql.type(z.object({ token_hash: z.instanceof(Buffer) }))`SELECT token_hash FROM refresh_tokens WHERE user_id = ${user.id}`,
    );
    expect(tokens.map((token) => token.toString())).to.deep.equal(['purge-test-live']);
  });

  it('forgets decision-maker invitations logged more than a week ago', async () => {
    const { db, temporal } = testEnvironment();
    const user = await createTestUser();
    const petitionId = await createPetitionRow(user.id);
    await db.query(sql.typeAlias('void')`
      INSERT INTO decision_maker_invitation_log (decision_maker_id, petition_id, creator_id, email_hash, invited_at)
      VALUES (gen_random_uuid(), ${petitionId}, ${user.id}, sha256('old'::bytea), now() - interval '8 days'),
             (gen_random_uuid(), ${petitionId}, ${user.id}, sha256('new'::bytea), now() - interval '6 days')
    `);
    const taskQueue = uniqueTaskQueue('purge-invitations');
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(temporal.client.workflow.execute(purgeIdempotencyKeys, { taskQueue, workflowId: `purge-invitations-test-${taskQueue}` }));
    const left = await db.anyFirst(sql.type(z.object({ days: z.number() }))`
      SELECT extract(day FROM now() - invited_at)::int AS days FROM decision_maker_invitation_log WHERE petition_id = ${petitionId}`);
    expect(left).to.deep.equal([6]);
  });
});
