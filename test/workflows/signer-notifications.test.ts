import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { notifyPetitionSigners } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow } from '../support/events.ts';
import { createTestUser } from '../support/identity.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

const SIGNERS = 40;

/** Signers made straight in SQL: the fan-out only needs users and signatures rows. */
async function seedSigners(petitionId: string, prefix: string): Promise<void> {
  await testEnvironment().db.query(sql.typeAlias('void')`
    WITH made AS (
      INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, notification_prefs)
      SELECT 'test', ${prefix} || n, ${prefix} || n || '@example.test', 'Signer ' || n, ${prefix} || n,
             CASE WHEN n = 1 THEN '{"petition.victory": {"in_app": false}}'::jsonb ELSE '{}'::jsonb END
      FROM generate_series(1, ${SIGNERS}) AS n
      RETURNING id
    )
    INSERT INTO signatures (petition_id, user_id) SELECT ${petitionId}, id FROM made
  `);
}

describe('workflow notifyPetitionSigners', function () {
  this.timeout(90_000);

  it('notifies every signer once, in batches across continue-as-new, honouring preferences', async () => {
    const { db, temporal } = testEnvironment();
    const creator = await createTestUser();
    const petitionId = await createPetitionRow(creator.id);
    const prefix = `signer-${petitionId.slice(0, 8)}-`;
    await seedSigners(petitionId, prefix);
    await db.query(sql.typeAlias('void')`INSERT INTO signatures (petition_id, user_id) VALUES (${petitionId}, ${creator.id})`);
    const taskQueue = uniqueTaskQueue('signers');
    const worker = await createTestWorker(taskQueue);
    const input = {
      petitionId,
      type: 'petition.victory',
      title: 'We won',
      body: 'Thank you for signing.',
      data: { petition_id: petitionId },
      dedupeKey: `victory:${petitionId}`,
      batchSize: 5,
      batchesPerRun: 3,
    };
    const [first, second] = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(notifyPetitionSigners, { taskQueue, workflowId: `notify-signers-${petitionId}`, args: [input] });
      const result = await handle.result();
      expect((await handle.describe()).runId, 'continued as new at least once').to.not.equal(handle.firstExecutionRunId);
      await captureHistory('notify-petition-signers', handle);
      const again = await temporal.client.workflow.execute(notifyPetitionSigners, {
        taskQueue,
        workflowId: `notify-signers-again-${petitionId}`,
        args: [{ ...input, batchSize: 50 }],
      });
      return [result, again];
    });
    expect(first.notified).to.equal(SIGNERS - 1);
    expect(second.notified, 'a repeat notifies nobody twice').to.equal(0);
    const recipients = await db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM notifications WHERE dedupe_key = ${input.dedupeKey}`);
    expect(recipients).to.equal(SIGNERS - 1);
    const creatorNotified = await db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM notifications WHERE dedupe_key = ${input.dedupeKey} AND user_id = ${creator.id}`);
    expect(creatorNotified, 'the creator hears as the creator, not as a signer').to.equal(0);
  });

  it('tells several petitions their own notice in turn, one workflow across continue-as-new, each signer once', async () => {
    const { db, temporal } = testEnvironment();
    const creator = await createTestUser();
    const petitionIds = [await createPetitionRow(creator.id), await createPetitionRow(creator.id)];
    for (const petitionId of petitionIds) await seedSigners(petitionId, `round-${petitionId.slice(0, 8)}-`);
    const notice = (petitionId: string) => ({
      petitionId,
      type: 'petition.victory',
      title: 'We won',
      body: 'Thank you for signing.',
      data: { petition_id: petitionId },
      dedupeKey: `victory-round:${petitionId}`,
    });
    const taskQueue = uniqueTaskQueue('signer-rounds');
    const worker = await createTestWorker(taskQueue);
    // 39 signers of each who want it: 8 batches of 5 a petition, so runs of 3 batches end inside each notice and between them.
    const result = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(notifyPetitionSigners, {
        taskQueue,
        workflowId: `notify-signers-round-${petitionIds[0]}`,
        args: [{ ...notice(petitionIds[0]!), then: [notice(petitionIds[1]!)], batchSize: 5, batchesPerRun: 3 }],
      });
      const told = await handle.result();
      await captureHistory('notify-petition-signers-several-notices', handle);
      return told;
    });
    expect(result.notified).to.equal(2 * (SIGNERS - 1));
    for (const petitionId of petitionIds) {
      const told = await db.oneFirst(sql.type(z.object({ count: z.number() }))`
        SELECT count(*)::int AS count FROM notifications n JOIN signatures s ON s.user_id = n.user_id AND s.petition_id = ${petitionId}
        WHERE n.dedupe_key = ${notice(petitionId).dedupeKey}`);
      expect(told, `the signers of petition ${petitionIds.indexOf(petitionId) + 1}, once each`).to.equal(SIGNERS - 1);
    }
  });
});
