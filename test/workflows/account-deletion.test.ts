// The accountDeletion workflow on a real worker: batches smaller than the person's rows, so every step
// loops, and a signature and a comment written while it runs (before its last step), which the last
// step's re-scan must still find. Its history joins the replay suite (RALLY_CAPTURE_HISTORIES=1).
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { FORMER_MEMBER_ID } from '../../core/users/former-member.ts';
import { accountDeletion, accountDeletionWorkflowId } from '../../workflows/index.ts';
import { createActivities } from '../../activities/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow } from '../support/events.ts';
import { createTestUser } from '../support/identity.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

describe('workflow accountDeletion', function () {
  this.timeout(120_000);

  it('erases in batches, re-scans for what was written meanwhile, and removes the user', async () => {
    const { db, temporal } = testEnvironment();
    const person = await createTestUser({ name: 'Katherine Johnson' });
    const creator = await createTestUser();
    const petitions = await Promise.all(Array.from({ length: 8 }, () => createPetitionRow(creator.id)));
    const late = await createPetitionRow(creator.id);
    const own = await createPetitionRow(person.id, 'Her own petition, which stays');
    await db.query(sql.typeAlias('void')`
      INSERT INTO signatures (petition_id, user_id, comment, city, country, latitude, longitude, display_location, source)
      SELECT p, ${person.id}, 'Count me in', 'Hampton', 'US', 37.0, -76.3, 'Hampton, VA', 'widget'
      FROM unnest(${sql.array(petitions, 'uuid')}) AS p
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO comments (petition_id, user_id, body) SELECT p, ${person.id}, 'Numbers matter' FROM unnest(${sql.array(petitions, 'uuid')}) AS p
    `);

    // Written "meanwhile": once the batches are past signatures and comments, before the last step.
    const activities = createActivities({ db });
    let wroteLate = false;
    const taskQueue = uniqueTaskQueue('account-deletion');
    const worker = await createTestWorker(taskQueue, {
      async eraseAccountBatch(input) {
        if (input.step === 'events' && !wroteLate) {
          wroteLate = true;
          await db.query(sql.typeAlias('void')`
            INSERT INTO signatures (petition_id, user_id, comment, country) VALUES (${late}, ${person.id}, 'Signed while leaving', 'US')
          `);
          await db.query(sql.typeAlias('void')`INSERT INTO comments (petition_id, user_id, body) VALUES (${late}, ${person.id}, 'One more')`);
        }
        return activities.eraseAccountBatch(input);
      },
    });
    const result = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(accountDeletion, {
        taskQueue,
        workflowId: accountDeletionWorkflowId(person.id),
        args: [{ userId: person.id, batchSize: 3 }],
      });
      const outcome = await handle.result();
      await captureHistory('account-deletion-confirmed', handle);
      return outcome;
    });
    expect(result.step).to.equal('done');
    expect(wroteLate).to.equal(true);

    const left = await db.one(sql.type(z.object({ users: z.number(), named: z.number(), anonymous: z.number(), comments: z.number(), mine: z.number() }))`
      SELECT (SELECT count(*)::int FROM users WHERE id = ${person.id}) AS users,
        (SELECT count(*)::int FROM signatures WHERE user_id = ${person.id} OR comment IS NOT NULL AND petition_id = ${late}) AS named,
        (SELECT count(*)::int FROM signatures WHERE petition_id = ANY (${sql.array([...petitions, late], 'uuid')})
           AND user_id IS NULL AND is_anonymous AND city IS NULL AND latitude IS NULL AND source IS NULL AND country = 'US') AS anonymous,
        (SELECT count(*)::int FROM comments WHERE petition_id = ANY (${sql.array([...petitions, late], 'uuid')})
           AND body = '[deleted]' AND user_id = ${FORMER_MEMBER_ID} AND deleted_at IS NOT NULL) AS comments,
        (SELECT count(*)::int FROM petitions WHERE id = ${own} AND creator_id = ${FORMER_MEMBER_ID}) AS mine
    `);
    expect(left).to.deep.equal({ users: 0, named: 0, anonymous: 9, comments: 9, mine: 1 });
  });
});
