import { expect } from 'chai';
import { z } from 'zod';
import { createOAuthActivities } from '../../activities/oauth.ts';
import { IDENTITY_SIGNING_KEYS, OAUTH_SIGNING_KEYS } from '../../core/auth/rotating-signing-keys.ts';
import { sql } from '../../db/sql.ts';
import { loadConfig } from '../../platform/config.ts';
import { rotateOAuthSigningKeys } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

const DAY_MS = 86_400_000;

describe('workflow rotateOAuthSigningKeys', function () {
  this.timeout(60_000);

  it('makes the next app-token and identity provider keys, each to sign after a day of being published, and no second one on a repeat', async () => {
    const { db, temporal } = testEnvironment();
    // The real activities on the real database; the policy makes a rotation due now instead of after a month.
    const activities = createOAuthActivities({
      db,
      encryptionKey: loadConfig({}).encryptionKey,
      keyRotation: { rotateAfterMs: 0, publishLeadMs: DAY_MS, retainAfterReplacedMs: 2 * DAY_MS },
      embeddedIdentityProvider: true,
    });
    const taskQueue = uniqueTaskQueue('rotate-oauth-keys');
    const worker = await createTestWorker(taskQueue, activities);
    const [first, repeat] = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(rotateOAuthSigningKeys, { taskQueue, workflowId: `rotate-oauth-signing-keys-test-${taskQueue}` });
      const outcome = await handle.result();
      // The run before identity keys rotated too is kept as rotate-oauth-signing-keys.json.
      await captureHistory('rotate-oauth-signing-keys-with-identity-keys', handle);
      const again = await temporal.client.workflow.execute(rotateOAuthSigningKeys, { taskQueue, workflowId: `rotate-oauth-signing-keys-repeat-${taskQueue}` });
      return [outcome, again];
    });
    try {
      expect(first.created).to.be.a('string');
      expect(first.identity?.created).to.be.a('string');
      expect(repeat.created, 'a pending key is not doubled').to.equal(null);
      expect(repeat.identity?.created, 'a pending identity key is not doubled').to.equal(null);
      for (const [table, kid] of [
        [OAUTH_SIGNING_KEYS.table, first.created!],
        [IDENTITY_SIGNING_KEYS.table, first.identity!.created!],
      ] as const) {
        const signsIn = await db.oneFirst(sql.type(z.object({ ms: z.number() }))`
          SELECT (extract(epoch FROM signs_from - now()) * 1000)::float8 AS ms FROM ${sql.identifier([table])} WHERE kid = ${kid}`);
        expect(signsIn, table).to.be.within(DAY_MS - 60_000, DAY_MS);
      }
    } finally {
      // The keys made here would sign tomorrow: they are no keys for the other tests of this run.
      for (const [store, kid] of [
        [OAUTH_SIGNING_KEYS, first.created],
        [IDENTITY_SIGNING_KEYS, first.identity?.created],
      ] as const) {
        await db.query(sql.typeAlias('void')`DELETE FROM ${sql.identifier([store.table])} WHERE kid = ${kid ?? ''}`);
        await db.query(sql.typeAlias('void')`SELECT FROM pg_notify(${store.channel}, '')`);
      }
    }
  });
});
