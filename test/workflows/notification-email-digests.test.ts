// The one workflow that mails every recipient's notification emails: it mails whoever has waited
// the window, ends once a window passes with nothing pending, and a recipient whose mail is refused
// does not hold up the others.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createNotificationEmailActivities } from '../../activities/notification-emails.ts';
import { createMailer } from '../../platform/mailer.ts';
import { notificationEmailDigests } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { createTestUser, type TestUser } from '../support/identity.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

const PUBLIC_URL = 'http://rally.test';
const ENCRYPTION_KEY = 'digest-test-key-0123456789abcdef0123456789';

describe('workflow notificationEmailDigests', function () {
  this.timeout(60_000);
  let mail: MailCatcher;
  const refused = new Set<string>();

  before(async () => {
    mail = await startMailCatcher({ refuse: (address) => refused.has(address) });
  });
  after(() => mail.stop());

  async function pendingReply(user: TestUser, key: string, age = '1 minute') {
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO notifications (user_id, type, title, body, dedupe_key, email_pending, created_at)
      VALUES (${user.id}, 'comment.reply', 'Sam replied to your comment', 'Count me in.', ${key}, true, now() - ${age}::interval)`);
  }
  const stillPending = (user: TestUser) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM notifications WHERE user_id = ${user.id} AND email_pending`);

  async function digestWorker(taskQueue: string) {
    const mailer = createMailer({ smtpUrl: mail.url, dir: '', from: 'Rally <rally@rally.test>' });
    return createTestWorker(
      taskQueue,
      createNotificationEmailActivities({ db: testEnvironment().db, mailer, publicUrl: PUBLIC_URL, encryptionKey: ENCRYPTION_KEY }),
    );
  }

  it('mails every recipient who waited the window and ends after a window with nothing pending', async () => {
    const users = [await createTestUser(), await createTestUser(), await createTestUser()];
    await Promise.all(users.map((user, index) => pendingReply(user, `digest-test:${index}`)));
    const taskQueue = uniqueTaskQueue('notification-email-digests');
    const worker = await digestWorker(taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await testEnvironment().temporal.client.workflow.start(notificationEmailDigests, {
        taskQueue,
        workflowId: `notification-email-digests-${taskQueue}`,
        args: [{ windowMs: 1_000 }],
      });
      const outcome = await handle.result();
      await captureHistory('notification-email-digests-mailed-then-idle', handle);
      return outcome;
    });
    for (const user of users) {
      expect(mail.messages.filter((message) => message.to.includes(user.email))).to.have.length(1);
      expect(await stillPending(user)).to.equal(0);
    }
    expect(result.recipients).to.be.at.least(users.length);
  });

  it('pauses at least a second before the next round while a recipient is due sooner, so that neighbours go out together', async () => {
    const user = await createTestUser();
    // A window of a minute that ends for this recipient 900 ms from now.
    await pendingReply(user, 'digest-soon', '59100 milliseconds');
    const mailer = createMailer({ smtpUrl: mail.url, dir: '', from: 'Rally <rally@rally.test>' });
    const activities = createNotificationEmailActivities({ db: testEnvironment().db, mailer, publicUrl: PUBLIC_URL, encryptionKey: ENCRYPTION_KEY });
    const { nextDueMs } = await activities.deliverDueNotificationEmails({ windowMs: 60_000 });
    // Null only if everything pending went out (the recipient came due before the call began).
    if (nextDueMs !== null) expect(nextDueMs).to.be.at.least(1_000);
  });

  it("mails the others when one recipient's mail is refused, and keeps that one pending", async () => {
    const [unreachable, reachable] = [await createTestUser(), await createTestUser()];
    refused.add(unreachable.email);
    await pendingReply(unreachable, 'digest-test:unreachable');
    await pendingReply(reachable, 'digest-test:reachable');
    const taskQueue = uniqueTaskQueue('notification-email-digests');
    const worker = await digestWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await testEnvironment().temporal.client.workflow.start(notificationEmailDigests, {
        taskQueue,
        workflowId: `notification-email-digests-${taskQueue}`,
        args: [{ windowMs: 1_000 }],
      });
      await mail.waitFor(reachable.email, /replied to your comment/);
      await handle.terminate('test over');
    });
    expect(mail.messages.filter((message) => message.to.includes(unreachable.email))).to.deep.equal([]);
    expect(await stillPending(unreachable)).to.equal(1);
    await testEnvironment().db.query(sql.typeAlias('void')`DELETE FROM notifications WHERE user_id = ${unreachable.id}`);
  });

  it("mails a new notification within two windows while another recipient's mail keeps being refused", async () => {
    const [unreachable, reachable] = [await createTestUser(), await createTestUser()];
    refused.add(unreachable.email);
    await pendingReply(unreachable, 'digest-test:still-refused');
    const taskQueue = uniqueTaskQueue('notification-email-digests');
    const windowMs = 1_000;
    const worker = await digestWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await testEnvironment().temporal.client.workflow.start(notificationEmailDigests, {
        taskQueue,
        workflowId: `notification-email-digests-${taskQueue}`,
        args: [{ windowMs }],
      });
      // The refused recipient's round is over, so the workflow waits to try them again.
      await eventually(
        async () => (await handle.fetchHistory()).events?.some((event) => event.timerStartedEventAttributes) || undefined,
        20_000,
        'a round to end',
      );
      await pendingReply(reachable, 'digest-test:meanwhile', '0 seconds');
      await mail.waitFor(reachable.email, /replied to your comment/, 2 * windowMs + 3_000);
      await handle.terminate('test over');
    });
    await testEnvironment().db.query(sql.typeAlias('void')`DELETE FROM notifications WHERE user_id = ${unreachable.id}`);
  });
});
