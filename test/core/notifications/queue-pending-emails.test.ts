// The dispatcher queues notification emails a bounded number at a time, so a burst of them is spread
// over several rounds (each of which also starts webhook deliveries) instead of holding one up.
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
    const stillUnqueued = () => db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int AS count FROM notifications WHERE user_id IN (${users[0]!.id}, ${users[1]!.id}) AND email_queued_at IS NULL`);

    const first = await queuePendingEmails(db, 2);
    expect(first.more).to.equal(true);
    expect(first.userIds.length).to.be.at.most(2);
    let calls = 1;
    while ((await stillUnqueued()) > 0 && calls < 1_000) {
      await queuePendingEmails(db, 2);
      calls += 1;
    }
    expect(await stillUnqueued()).to.equal(0);
    expect(calls).to.be.at.least(Math.ceil(mine / 2));
  });
});
