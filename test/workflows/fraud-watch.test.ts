// The scheduled fraud watch against real API and worker processes: a burst of signatures on one petition, from one /24, by accounts of one email domain, is
// signed through the API; the watch (started here as the schedule starts it) must raise fraud.suspected for each of those subjects, as an outbox event and as
// an in-app notification to a platform administrator, and a second examination of the same windows must raise nothing more.
import { expect } from 'chai';
import { randomInt, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { fraudWatch } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow, eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

const BURST = 8;
// Windows of 5 s, a baseline of 2 min; a subject is suspect from 4 signatures in a window at three
// times its baseline. The burst is signed at once, so it falls into one or two windows: one has 4 or more.
const SETTINGS = { RALLY_FRAUD_WATCH_WINDOW: '5s', RALLY_FRAUD_WATCH_BASELINE: '2m', RALLY_FRAUD_WATCH_MIN_SIGNATURES: '4', RALLY_FRAUD_WATCH_MULTIPLE: '3' };

const Alert = z.object({ subject_type: z.string(), subject: z.string(), window_start: z.string() });
const Event = z.object({ id: z.string(), petition_id: z.string().nullable(), data: z.record(z.string(), z.unknown()) });

describe('workflow fraudWatch', function () {
  this.timeout(240_000);
  const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('fraud-watch'), RALLY_TRUST_PROXY: 'true', ...SETTINGS };
  let api: RunningApi;
  let worker: RallyProcess;
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const runWatch = async (name: string) => {
    const handle = await testEnvironment().temporal.client.workflow.start(fraudWatch, {
      taskQueue: env.RALLY_TASK_QUEUE,
      workflowId: `fraud-watch-test-${name}-${randomUUID()}`,
    });
    return { handle, result: await handle.result() };
  };

  it('raises fraud.suspected once per subject and window for a burst on one petition, from one /24, by one email domain', async () => {
    const { db } = testEnvironment();
    api = await startApi(env);
    worker = await startWorker(env);
    const admin = await createTestUser({ admin: true });
    const adminToken = (await login(api.baseUrl, admin)).accessToken;
    const petitionId = await createPetitionRow(admin.id, 'A petition signed in a sudden burst');
    const domain = `burst-${randomUUID().slice(0, 8)}.test`;
    const block = `100.${64 + randomInt(64)}.${randomInt(256)}`;
    const signers: string[] = [];
    for (let index = 0; index < BURST; index += 1) {
      signers.push((await login(api.baseUrl, await createTestUser({ email: `signer${index}@${domain}` }))).accessToken);
    }
    const statuses = await Promise.all(
      signers.map(
        async (token, index) =>
          (
            await fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'X-Forwarded-For': `${block}.${index + 1}`, ...bearer(token) },
              body: '{}',
            })
          ).status,
      ),
    );
    expect(statuses).to.deep.equal(Array.from({ length: BURST }, () => 201));

    const alertsOn = (subjectType: string, subject: string) =>
      db.any(sql.type(Alert)`
      SELECT subject_type, subject, window_start::text FROM fraud_alerts WHERE subject_type = ${subjectType} AND subject = ${subject}`);
    let lastRun: Awaited<ReturnType<typeof runWatch>> | undefined;
    const petitionAlerts = await eventually(
      async () => {
        lastRun = await runWatch('burst');
        const alerts = await alertsOn('petition', petitionId);
        return alerts.length > 0 ? alerts : undefined;
      },
      90_000,
      'an alert on the burst petition',
    );
    expect((await alertsOn('email_domain', domain)).length).to.equal(petitionAlerts.length);
    const blockAlerts = await db.any(sql.type(Alert)`
      SELECT subject_type, subject, window_start::text FROM fraud_alerts
      WHERE subject_type = 'network_block' AND window_start = ANY(${sql.array(
        petitionAlerts.map((alert) => alert.window_start),
        'timestamptz',
      )})`);
    expect(blockAlerts.length).to.be.at.least(1);

    const events = await db.any(sql.type(Event)`
      SELECT id, petition_id, data FROM events WHERE type = 'fraud.suspected' AND data ->> 'subject' = ${petitionId}`);
    expect(events).to.have.length(petitionAlerts.length);
    expect(events[0]!.petition_id, 'the suspect petition’s creator is not told through its webhooks').to.equal(null);
    expect(events[0]!.data).to.include({ subject_type: 'petition', petition_id: petitionId, multiple: 3 });
    expect(events[0]!.data.signatures).to.be.at.least(4);

    const notifications = (await json(await fetch(`${api.baseUrl}/v1/notifications?limit=100`, { headers: bearer(adminToken) }))).data as {
      type: string;
      title: string;
      data: { subject: string };
    }[];
    const aboutPetition = notifications.filter((each) => each.type === 'moderation.fraud_suspected' && each.data.subject === petitionId);
    expect(aboutPetition).to.have.length(petitionAlerts.length);
    expect(aboutPetition[0]!.title).to.include('A petition signed in a sudden burst');
    expect(notifications.some((each) => each.type === 'moderation.fraud_suspected' && each.data.subject === domain)).to.equal(true);
    if (lastRun) await captureHistory('fraud-watch-alerted', lastRun.handle);

    // The same windows examined again (the watch's position moved back) raise nothing more.
    await db.query(sql.typeAlias('void')`UPDATE fraud_watch_state SET watched_until = watched_until - interval '1 minute'`);
    await runWatch('again');
    expect(await alertsOn('petition', petitionId)).to.deep.equal(petitionAlerts);
    const eventCount = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM events WHERE type = 'fraud.suspected' AND data ->> 'subject' = ${petitionId}`);
    expect(eventCount).to.equal(petitionAlerts.length);
  });

  it('counts guest signatures not confirmed yet: a burst of guest forms by one email domain raises an alert (issue 26)', async () => {
    const { db } = testEnvironment();
    const owner = await createTestUser();
    const petitionId = await createPetitionRow(owner.id, 'A petition a farm of addresses signs as guests');
    const slug = await db.oneFirst(sql.type(z.object({ slug: z.string() }))`SELECT slug FROM petitions WHERE id = ${petitionId}`);
    const domain = `farm-${randomUUID().slice(0, 8)}.test`;
    const page = await (await fetch(`${api.baseUrl}/p/${slug}`)).text();
    const token = /name="form_token" value="([^"]+)"/.exec(page)![1]!;
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    const statuses = await Promise.all(
      Array.from({ length: BURST }, async (_, index) => {
        const body = new URLSearchParams({ name: `Farm ${index}`, email: `guest${index}@${domain}`, form_token: token });
        const response = await fetch(`${api.baseUrl}/p/${slug}/sign-by-email`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': `100.64.${randomInt(256)}.${index + 1}` },
          body: body.toString(),
        });
        return response.status;
      }),
    );
    expect(statuses).to.deep.equal(Array.from({ length: BURST }, () => 200));
    const alerts = await eventually(
      async () => {
        await runWatch('guests');
        const found = await db.any(sql.type(Alert)`
          SELECT subject_type, subject, window_start::text FROM fraud_alerts WHERE subject_type = 'email_domain' AND subject = ${domain}`);
        return found.length > 0 ? found : undefined;
      },
      90_000,
      'an alert on the guest burst domain',
    );
    expect(alerts[0]!.subject).to.equal(domain);
  });
});
