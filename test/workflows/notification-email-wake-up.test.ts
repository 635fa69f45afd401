// The wake-up of the notification-email digests workflow, end to end through a real worker process:
// when the dispatcher cannot reach Temporal, the notification stays waiting for the next wake-up
// instead of for the 15-minute requeue. The worker reaches Temporal through a proxy the test cuts.
import { expect } from 'chai';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { createTestUser } from '../support/identity.ts';
import { startWorker, type RallyProcess } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { eventually } from '../support/events.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const WINDOW_MS = 2_000;
// Far below the 15-minute requeue of core/notifications/emails.ts, far above gRPC's reconnect backoff.
const RECONNECTED_WITHIN_MS = 60_000;

describe('notification email wake-ups', function () {
  this.timeout(120_000);
  let mail: MailCatcher;
  let temporal: TcpProxy;
  let worker: RallyProcess;
  let output = '';

  before(async () => {
    mail = await startMailCatcher();
    // What is measured is this notification's wait: the e-mails earlier tests of this shared database
    // left pending (to users long gone, some to unreachable mail servers) would be mailed first.
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE notifications SET email_pending = false WHERE email_pending`);
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE guest_signatures SET email_due = false WHERE email_due`);
    const [host, port] = testEnvironment().temporal.address.split(':');
    temporal = await startTcpProxy(host!, Number(port));
    worker = await startWorker(
      {
        RALLY_TASK_QUEUE: uniqueTaskQueue('notification-wake-up'),
        SMTP_URL: mail.url,
        RALLY_NOTIFICATION_EMAIL_WINDOW: `${WINDOW_MS / 1000}s`,
        TEMPORAL_ADDRESS: `127.0.0.1:${temporal.port}`,
      },
      {
        onOutput: (chunk) => {
          output += chunk;
        },
      },
    );
  });
  after(async () => {
    await worker.stop();
    await temporal.close();
    await mail.stop();
  });

  it('mails a notification once Temporal is back even when the first wake-up failed, not at the 15-minute requeue', async () => {
    const author = await createTestUser();
    await temporal.cut();
    output = '';
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO notifications (user_id, type, title, body, dedupe_key, email_pending)
      VALUES (${author.id}, 'comment.reply', 'Sam replied to your comment', 'Count me in.', 'wake-up-test:1', true)`);
    // The dispatcher tried to wake the workflow and Temporal could not be reached.
    await eventually(async () => output.includes('dispatch round failed') || undefined, 30_000, 'a failed wake-up');
    await temporal.restore();
    const restored = Date.now();
    // The next dispatch round after the worker's Temporal connection is back wakes the workflow. How
    // soon the connection is back is gRPC's reconnect backoff (seconds, more on a loaded machine); what
    // must not happen is the wait for the requeue, a quarter of an hour after the failed wake-up.
    await mail.waitFor(author.email, /replied to your comment/, RECONNECTED_WITHIN_MS);
    expect(Date.now() - restored).to.be.below(RECONNECTED_WITHIN_MS);
  });
});
