// The wake-up of the notification-email digests workflow, end to end through a real worker process: when the dispatcher cannot reach Temporal, the
// notification stays waiting for the next wake-up instead of for the 15-minute requeue (the worker reaches Temporal through a proxy the test cuts); and
// a burst of notifications wakes the workflow at most once a second, not once per dispatch round.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { createTestUser } from '../support/identity.ts';
import { startWorker, type RallyProcess } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { eventually } from '../support/events.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { EVENTS_CHANNEL } from '../../core/events/record-event.ts';
import { notificationEmailDigestsWorkflowId } from '../../workflows/notification-email-digests.ts';

const WINDOW_MS = 2_000;
// Far below the 15-minute requeue of core/notifications/emails.ts, far above gRPC's reconnect backoff.
const RECONNECTED_WITHIN_MS = 60_000;

describe('notification email wake-ups', function () {
  this.timeout(120_000);
  let mail: MailCatcher;
  let temporal: TcpProxy;
  let worker: RallyProcess;
  let output = '';
  const taskQueue = uniqueTaskQueue('notification-wake-up');

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
        RALLY_TASK_QUEUE: taskQueue,
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
    await eventually(async () => output.includes('email wake-ups round failed') || undefined, 30_000, 'a failed wake-up');
    await temporal.restore();
    const restored = Date.now();
    // The next dispatch round after the worker's Temporal connection is back wakes the workflow. How
    // soon the connection is back is gRPC's reconnect backoff (seconds, more on a loaded machine); what
    // must not happen is the wait for the requeue, a quarter of an hour after the failed wake-up.
    await mail.waitFor(author.email, /replied to your comment/, RECONNECTED_WITHIN_MS);
    expect(Date.now() - restored).to.be.below(RECONNECTED_WITHIN_MS);
  });

  /** Signal-with-starts the digests workflow received since `since`: each is a run's start or a signal to a running one. */
  async function wakeUpsSince(since: Date): Promise<number> {
    const { client } = testEnvironment().temporal;
    let wakeUps = 0;
    for await (const run of client.workflow.list({ query: `WorkflowId = '${notificationEmailDigestsWorkflowId(taskQueue)}'` })) {
      const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
      for (const event of history.events ?? []) {
        const at = new Date(Number(event.eventTime!.seconds) * 1000 + Math.floor((event.eventTime!.nanos ?? 0) / 1e6));
        const wake = event.workflowExecutionStartedEventAttributes || event.workflowExecutionSignaledEventAttributes?.signalName === 'notificationsPending';
        if (wake && at >= since) wakeUps += 1;
      }
    }
    return wakeUps;
  }

  it('wakes the digests workflow at most once a second while every dispatch round finds a new notification', async () => {
    const { db } = testEnvironment();
    const recipient = await createTestUser();
    const began = new Date();
    // Thirty notifications, a tenth of a second apart, each followed by the NOTIFY that starts a dispatch round at once.
    for (let n = 0; n < 30; n += 1) {
      await db.query(sql.typeAlias('void')`
        INSERT INTO notifications (user_id, type, title, body, dedupe_key, email_pending)
        VALUES (${recipient.id}, 'comment.reply', ${`Reply ${n} to your comment`}, 'Count me in.', ${`wake-pace:${recipient.id}:${n}`}, true)`);
      await db.query(sql.typeAlias('void')`NOTIFY ${sql.identifier([EVENTS_CHANNEL])}`);
      await sleep(100);
    }
    const burstSeconds = (Date.now() - began.getTime()) / 1000;
    // Every one is mailed: none left pending, and the recipient has a digest.
    await eventually(
      async () =>
        (await db.oneFirst(sql.type(z.object({ pending: z.number() }))`
          SELECT count(*)::int AS pending FROM notifications WHERE user_id = ${recipient.id} AND email_pending`)) === 0 || undefined,
      60_000,
      'all thirty notifications mailed',
    );
    await mail.waitFor(recipient.email, /new notifications on Rally|Reply \d+ to your comment/, 10_000);
    const wakeUps = await wakeUpsSince(began);
    expect(wakeUps).to.be.at.least(1);
    expect(wakeUps, `wake-ups during a burst of ${burstSeconds.toFixed(1)} s`).to.be.at.most(Math.ceil(burstSeconds) + 1);
  });
});
