// The digests workflow asks whom to mail now: recipients whose oldest pending email has waited the
// window, longest-waiting first, and how long until the next one is due.
import { expect } from 'chai';
import { sql } from '../../../db/sql.ts';
import { dueRecipients } from '../../../core/notifications/emails.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';

describe('dueRecipients (core/notifications/emails.ts)', () => {
  const pendingEmail = async (userId: string, createdAt: string, key: string) => {
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO notifications (user_id, type, title, body, dedupe_key, email_pending, created_at)
      VALUES (${userId}, 'comment.reply', 'A reply', 'Someone replied to your comment.', ${key}, true, ${createdAt}::timestamptz)`);
  };
  const forget = (userIds: string[]) =>
    testEnvironment().db.query(sql.typeAlias('void')`
    DELETE FROM notifications WHERE user_id = ANY(${sql.array(userIds, 'uuid')})`);

  it('names a recipient once the window passed since their oldest pending email, and not before', async () => {
    const [waited, fresh] = [await createTestUser(), await createTestUser()];
    await pendingEmail(waited.id, new Date(Date.now() - 10_000).toISOString(), 'due-test:waited:1');
    await pendingEmail(waited.id, new Date().toISOString(), 'due-test:waited:2');
    await pendingEmail(fresh.id, new Date().toISOString(), 'due-test:fresh');
    try {
      const due = await dueRecipients(testEnvironment().db, 5_000, 10_000);
      expect(due.userIds).to.include(waited.id);
      expect(due.userIds).not.to.include(fresh.id);
      expect(due.nextDueMs).to.be.a('number').within(1, 5_000);
    } finally {
      await forget([waited.id, fresh.id]);
    }
  });

  it('answers at most the limit, longest-waiting first, and says more are due now', async () => {
    const users = [await createTestUser(), await createTestUser(), await createTestUser()];
    // Older than anything another test leaves pending, so these three come first.
    await Promise.all(users.map((user, index) => pendingEmail(user.id, `2001-01-0${index + 1}T00:00:00Z`, `due-test:old:${index}`)));
    try {
      const due = await dueRecipients(testEnvironment().db, 1_000, 2);
      expect(due.userIds).to.deep.equal([users[0]!.id, users[1]!.id]);
      expect(due.nextDueMs).to.equal(0);
    } finally {
      await forget(users.map((user) => user.id));
    }
  });
});
