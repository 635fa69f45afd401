// The dispatcher queues notification emails a bounded number at a time, so a burst of them is spread
// over several rounds (each of which also starts webhook deliveries) instead of holding one up, and
// marks them queued only once the workflow that mails them was woken.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { queuePendingEmails } from '../../../core/notifications/emails.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';

describe('queuePendingEmails (core/notifications/emails.ts)', () => {
  it('queues at most the limit per call, says when more wait, and gets through them all over several calls', async () => {
    const { db } = testEnvironment();
    const users = [await createTestUser(), await createTestUser()];
    const mine = 5;
    for (let index = 0; index < mine; index += 1) {
      await db.query(sql.typeAlias('void')`
        INSERT INTO notifications (user_id, type, title, body, dedupe_key, email_pending)
        VALUES (${users[index % 2]!.id}, 'petition.milestone', 'A milestone', 'Your petition passed 100 signatures.', ${`queue-test:${index}`}, true)`);
    }
    const stillUnqueued = () =>
      db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM notifications WHERE user_id IN (${users[0]!.id}, ${users[1]!.id}) AND email_queued_at IS NULL`);

    const woken = async () => {};
    const first = await queuePendingEmails(db, 2, woken);
    expect(first.more).to.equal(true);
    expect(first.userIds.length).to.be.at.most(2);
    let calls = 1;
    while ((await stillUnqueued()) > 0 && calls < 1_000) {
      await queuePendingEmails(db, 2, woken);
      calls += 1;
    }
    expect(await stillUnqueued()).to.equal(0);
    expect(calls).to.be.at.least(Math.ceil(mine / 2));
  });

  it('leaves the emails unqueued when the wake-up fails, and queues them with the next one that succeeds', async () => {
    const { db } = testEnvironment();
    const user = await createTestUser();
    await db.query(sql.typeAlias('void')`
      INSERT INTO notifications (user_id, type, title, body, dedupe_key, email_pending)
      VALUES (${user.id}, 'comment.reply', 'Sam replied to your comment', 'Count me in.', 'queue-test:refused', true)`);
    const queued = () =>
      db.oneFirst(sql.type(z.object({ queued: z.boolean() }))`
      SELECT email_queued_at IS NOT NULL AS queued FROM notifications WHERE user_id = ${user.id}`);

    const refused = await queuePendingEmails(db, 10_000, () => Promise.reject(new Error('Temporal unreachable'))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.have.property('message', 'Temporal unreachable');
    expect(await queued()).to.equal(false);

    const woken: string[][] = [];
    await queuePendingEmails(db, 10_000, async (userIds) => {
      woken.push(userIds);
    });
    expect(woken.flat()).to.include(user.id);
    expect(await queued()).to.equal(true);
  });
});
