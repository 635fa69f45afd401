// Portal token expiry end to end, with RALLY_RESPONSE_TOKEN_TTL=20s: the token's workflow waits on
// a server-side timer while the worker is killed and restarted, sends its one reminder, then marks
// the token expired, and the portal answers 410 from then on.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { responseTokenExpiry, responseTokenWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { portalLink, startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

describe('response-token workflow', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mail: MailCatcher;
  let env: Record<string, string>;

  before(async () => {
    mail = await startMailCatcher();
    env = { RALLY_TASK_QUEUE: uniqueTaskQueue('response-token'), SMTP_URL: mail.url, RALLY_RESPONSE_TOKEN_TTL: '20s' };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await mail.stop();
  });

  /** Runs a token's expiry workflow started now, on a worker of its own, to its end; its history is captured as `history`. */
  async function expiryStartedNow(tokenId: string, petitionId: string, workflowId: string, history: string) {
    const taskQueue = uniqueTaskQueue(history);
    const testWorker = await createTestWorker(taskQueue);
    const now = Date.now();
    return testWorker.runUntil(async () => {
      const handle = await testEnvironment().temporal.client.workflow.start(responseTokenExpiry, {
        taskQueue,
        workflowId,
        args: [{ tokenId, petitionId, issuedAt: new Date(now).toISOString(), expiresAt: new Date(now + 30 * 86_400_000).toISOString() }],
      });
      const outcome = await handle.result();
      await captureHistory(history, handle);
      return outcome;
    });
  }

  it('expires an unanswered token after the TTL, across a worker restart, after one reminder', async () => {
    const token = (await login(api.baseUrl, await createTestUser())).accessToken;
    const email = `minister-${Date.now()}@example.test`;
    const petition = await publishedPetition(api.baseUrl, token, { decisionMakers: [{ name: 'Sam Minister', title: 'Minister of Transport', email }] });
    const link = portalLink(await mail.waitFor(email, /asks for your response/)).replace(PUBLIC_URL, api.baseUrl);

    const tokenId = await testEnvironment().db.oneFirst(
      sql.type(z.object({ id: z.string() }))`SELECT id FROM response_tokens WHERE petition_id = ${petition.id}`,
    );
    const handle = testEnvironment().temporal.client.workflow.getHandle(responseTokenWorkflowId(tokenId));
    // Killed once the reminder's timer runs on the server (15 s after issue, at three quarters of the
    // TTL), so the worker misses the timer's moment and no activity of the dead worker is in flight.
    await eventually(
      () =>
        handle.fetchHistory().then(
          (history) => history.events?.some((event) => event.timerStartedEventAttributes) || undefined,
          () => undefined,
        ),
      15_000,
      'the expiry workflow to wait on its reminder timer',
    );
    await worker.stop('SIGKILL');
    worker = await startWorker(env);

    expect(await handle.result()).to.deep.equal({ tokenId, outcome: 'expired', reminded: true });
    await captureHistory('response-token-expired-checked-at-start', handle);

    const reminder = await mail.waitFor(email, /^Reminder/);
    expect(reminder.text).to.not.match(/\/respond\//);
    const opened = await fetch(link);
    expect(opened.status).to.equal(410);
    expect((await json(opened)).code).to.equal('token_expired');
    const answered = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'opposed', body: 'Too late.' }),
    });
    expect(answered.status).to.equal(410);
    const listed = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/decision-makers`, { headers: bearer(token) }));
    expect(listed.data[0]).to.include({ delivery_status: 'expired' });
    expect(listed.data[0].expired_at).to.be.a('string');
  });

  it('ends at once, without reminding, when the decision maker was removed before it started', async () => {
    const tokenId = randomUUID();
    const result = await expiryStartedNow(tokenId, randomUUID(), responseTokenWorkflowId(tokenId), 'response-token-removed-checked-at-start');
    expect(result).to.deep.equal({ tokenId, outcome: 'removed', reminded: false });
  });

  // The invitation is emailed before its workflow starts the token's expiry, so a quick decision maker's
  // `responded` signal can find no workflow yet (a full run of the suite saw the expiry wait its 30 days).
  it('ends at once, without reminding, when the decision maker answered before it started', async () => {
    const token = (await login(api.baseUrl, await createTestUser())).accessToken;
    const email = `quick-${Date.now()}@example.test`;
    const petition = await publishedPetition(api.baseUrl, token, { decisionMakers: [{ name: 'Quinn Quick', title: 'Mayor', email }] });
    const link = portalLink(await mail.waitFor(email, /asks for your response/)).replace(PUBLIC_URL, api.baseUrl);
    const answered = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'supportive', body: 'Yes.' }),
    });
    expect(answered.status).to.equal(201);
    const tokenId = await testEnvironment().db.oneFirst(
      sql.type(z.object({ id: z.string() }))`SELECT id FROM response_tokens WHERE petition_id = ${petition.id}`,
    );

    // An expiry of this token started only now, after the answer and its signal.
    const result = await expiryStartedNow(tokenId, petition.id, `${responseTokenWorkflowId(tokenId)}-started-late`, 'response-token-answered-before-start');
    expect(result).to.deep.equal({ tokenId, outcome: 'responded', reminded: false });
  });
});
