import { expect } from 'chai';
import { z } from 'zod';
import { createOAuthActivities } from '../../activities/oauth.ts';
import { OAUTH_SIGNING_KEYS_CHANNEL } from '../../core/oauth/signing-key.ts';
import { sql } from '../../db/sql.ts';
import { loadConfig } from '../../platform/config.ts';
import { rotateOAuthSigningKeys } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

const DAY_MS = 86_400_000;

describe('workflow rotateOAuthSigningKeys', function () {
  this.timeout(60_000);

  it('makes the next signing key, to sign only after a day of being published, and no second one on a repeat', async () => {
    const { db, temporal } = testEnvironment();
    // The real activity on the real database; the policy makes a rotation due now instead of after a month.
    const activities = createOAuthActivities({
      db,
      encryptionKey: loadConfig({}).encryptionKey,
      keyRotation: { rotateAfterMs: 0, publishLeadMs: DAY_MS, retainAfterReplacedMs: 2 * DAY_MS },
    });
    const taskQueue = uniqueTaskQueue('rotate-oauth-keys');
    const worker = await createTestWorker(taskQueue, activities);
    const [first, repeat] = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(rotateOAuthSigningKeys, { taskQueue, workflowId: `rotate-oauth-signing-keys-test-${taskQueue}` });
      const outcome = await handle.result();
      await captureHistory('rotate-oauth-signing-keys', handle);
      const again = await temporal.client.workflow.execute(rotateOAuthSigningKeys, { taskQueue, workflowId: `rotate-oauth-signing-keys-repeat-${taskQueue}` });
      return [outcome, again];
    });
    try {
      expect(first.created).to.be.a('string');
      expect(repeat.created, 'a pending key is not doubled').to.equal(null);
      const signsIn = await db.oneFirst(sql.type(z.object({ ms: z.number() }))`
        SELECT (extract(epoch FROM signs_from - now()) * 1000)::float8 AS ms FROM oauth_signing_keys WHERE kid = ${first.created!}`);
      expect(signsIn).to.be.within(DAY_MS - 60_000, DAY_MS);
    } finally {
      // The key made here would sign tomorrow: it is no key for the other tests of this run.
      await db.query(sql.typeAlias('void')`DELETE FROM oauth_signing_keys WHERE kid = ${first.created ?? ''}`);
      await db.query(sql.typeAlias('void')`SELECT FROM pg_notify(${OAUTH_SIGNING_KEYS_CHANNEL}, '')`);
    }
  });
});
