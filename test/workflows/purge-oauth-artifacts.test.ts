import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { purgeOAuthArtifacts } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

describe('workflow purgeOAuthArtifacts', function () {
  this.timeout(60_000);

  it("deletes the authorization server's records a day past expiry, and keeps newer and live ones", async () => {
    const { db, temporal } = testEnvironment();
    const grantId = `purge-${randomBytes(8).toString('hex')}`;
    const record = (model: string, suffix: string, expiresAt: string) => sql.fragment`
      (${model}, ${`${grantId}-${suffix}`}, '{}'::jsonb, ${grantId}, now() + ${expiresAt}::interval)`;
    await db.query(sql.typeAlias('void')`
      INSERT INTO oauth_server_records (model, id, payload, grant_id, expires_at) VALUES
        ${record('AuthorizationCode', 'old-code', '-2 days')}, ${record('RefreshToken', 'old-refresh', '-2 days')},
        ${record('Grant', 'old-grant', '-25 hours')}, ${record('RefreshToken', 'just-expired', '-1 hour')},
        ${record('RefreshToken', 'live', '1 day')}
    `);

    const taskQueue = uniqueTaskQueue('purge-oauth');
    const worker = await createTestWorker(taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(purgeOAuthArtifacts, { taskQueue, workflowId: `purge-oauth-artifacts-test-${taskQueue}` });
      const outcome = await handle.result();
      await captureHistory('purge-oauth-artifacts', handle);
      return outcome;
    });
    expect(result.deleted).to.be.at.least(3);
    const left = await db.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM oauth_server_records WHERE grant_id = ${grantId} ORDER BY id`);
    // An hour past expiry is kept, so the API can still answer token_expired rather than invalid_grant.
    expect(left).to.deep.equal([`${grantId}-just-expired`, `${grantId}-live`]);
  });
});
