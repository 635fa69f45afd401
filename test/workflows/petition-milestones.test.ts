// Milestone notifications owned by the petition's lifecycle workflow: a crossing is signalled to petition-<id> by the outbox dispatcher; the workflow tells the
// organization's admins at once and the signers who opted in to petition.milestone in batches, once per threshold, and starts no fan-out when none did. A
// crossing that nobody but the creator hears of is settled without a signal.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { petitionWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

type Person = TestUser & { token: string };

/** Every string and every payload's bytes (as UTF-8) of a history, joined: what its events say. */
const readableText = (value: unknown): string => {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') return Object.values(value).map(readableText).join(' ');
  return '';
};

describe('milestone notifications through the petition workflow', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers as object) } });
  const workflowStarted = (workflowId: string) =>
    testEnvironment()
      .temporal.client.workflow.getHandle(workflowId)
      .describe()
      .then(
        () => true,
        () => false,
      );
  const crossingHandedOver = (petitionId: string, threshold: number) =>
    testEnvironment().db.maybeOneFirst(
      sql.type(z.object({ handed_over: z.boolean() }))`
        SELECT signalled_at IS NOT NULL AS handed_over FROM petition_milestones WHERE petition_id = ${petitionId} AND threshold = ${threshold}
      `,
    );
  const milestoneNotifications = async (who: Person) =>
    (await json(await call('/v1/notifications?limit=100', who.token))).data.filter(
      (notification: { type: string }) => notification.type === 'petition.milestone',
    );

  before(async () => {
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('milestones'), RALLY_SIGN_LIMIT_PER_HOUR: '1000' };
    api = await startApi(env);
    worker = await startWorker(env);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  it('tells the admins at once and the opted-in signers, once per threshold', async () => {
    const [owner, admin, creator, optedIn, silent] = await Promise.all([person(), person(), person(), person(), person()]);
    const org = (
      await json(await call('/v1/organizations', owner.token, { method: 'POST', body: JSON.stringify({ name: `Quiet Streets ${randomUUID().slice(0, 8)}` }) }))
    ).data;
    await call(`/v1/organizations/${org.id}/members`, owner.token, { method: 'POST', body: JSON.stringify({ user_id: admin.id, role: 'admin' }) });
    await call(`/v1/organizations/${org.id}/members`, owner.token, { method: 'POST', body: JSON.stringify({ user_id: creator.id, role: 'member' }) });
    await call('/v1/notifications/preferences', optedIn.token, { method: 'PATCH', body: JSON.stringify({ 'petition.milestone': { in_app: true } }) });
    // A goal of 4 makes milestones of 1, 2, 3 and 4 signatures.
    const petition = await publishedPetition(api.baseUrl, creator.token, { orgId: org.id, signatureGoal: 4 });
    const signatureIds: string[] = [];
    for (const signer of [optedIn, silent]) {
      const response = await call(`/v1/petitions/${petition.id}/signatures`, signer.token, { method: 'POST', body: '{}' });
      expect(response.status).to.equal(201);
      signatureIds.push((await json(response)).data.id);
    }

    for (const leader of [owner, admin]) {
      const received = await eventually(
        async () => {
          const found = await milestoneNotifications(leader);
          return found.length >= 2 ? found : undefined;
        },
        60_000,
        'the milestone notifications of an organization admin',
      );
      expect(received.map((notification: { data: { threshold: number } }) => notification.data.threshold).sort()).to.deep.equal([1, 2]);
    }
    await eventually(async () => ((await milestoneNotifications(optedIn)).length >= 2 ? true : undefined), 60_000, "the opted-in signer's notifications");
    expect(await milestoneNotifications(silent)).to.deep.equal([]);
    expect((await milestoneNotifications(optedIn)).length).to.equal(2);

    const handle = testEnvironment().temporal.client.workflow.getHandle(petitionWorkflowId(petition.id));
    const history = await handle.fetchHistory();
    const signals = history.events!.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'milestoneReached');
    expect(signals).to.have.length(2);
    // One petition's crossings are signalled in the order they were reached.
    const thresholds = signals.map(
      (event) => JSON.parse(Buffer.from(event.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!.data!).toString('utf8')).threshold,
    );
    expect(thresholds).to.deep.equal([1, 2]);
    // The history holds crossings, never single signatures: no event names a signature. (Its length
    // is no measure of that: a loaded machine adds workflow-task timeouts and retries.)
    const recorded = readableText(history);
    for (const signatureId of signatureIds) expect(recorded).not.to.include(signatureId);
    expect((await call(`/v1/petitions/${petition.id}/close`, creator.token, { method: 'POST' })).status).to.equal(200);
    await handle.result();
    await captureHistory('petition-lifecycle-milestones-announced-locally', handle);
  });

  it('tells only the admins, with no signer fan-out, when no signer opted in to hear about it', async () => {
    const [owner, creator, signer] = await Promise.all([person(), person(), person()]);
    const org = (
      await json(await call('/v1/organizations', owner.token, { method: 'POST', body: JSON.stringify({ name: `Clean Air ${randomUUID().slice(0, 8)}` }) }))
    ).data;
    await call(`/v1/organizations/${org.id}/members`, owner.token, { method: 'POST', body: JSON.stringify({ user_id: creator.id, role: 'member' }) });
    const petition = await publishedPetition(api.baseUrl, creator.token, { orgId: org.id, signatureGoal: 4 });
    expect((await call(`/v1/petitions/${petition.id}/signatures`, signer.token, { method: 'POST', body: '{}' })).status).to.equal(201);

    const told = await eventually(
      async () => {
        const found = await milestoneNotifications(owner);
        return found.length >= 1 ? found : undefined;
      },
      60_000,
      "the organization owner's milestone notification",
    );
    expect(told.map((notification: { data: { threshold: number } }) => notification.data.threshold)).to.deep.equal([1]);
    const { client } = testEnvironment().temporal;
    const handle = client.workflow.getHandle(petitionWorkflowId(petition.id));
    const signals = (await handle.fetchHistory()).events!.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'milestoneReached');
    expect(signals).to.have.length(1);
    expect(await workflowStarted(`signer-notifications-milestone-${petition.id}-1`)).to.equal(false);
  });

  it('settles a crossing nobody hears of without signalling the petition workflow', async () => {
    const [creator, signer] = await Promise.all([person(), person()]);
    const petition = await publishedPetition(api.baseUrl, creator.token, { signatureGoal: 4 });
    expect((await call(`/v1/petitions/${petition.id}/signatures`, signer.token, { method: 'POST', body: '{}' })).status).to.equal(201);

    await eventually(
      async () => ((await crossingHandedOver(petition.id, 1)) ? true : undefined),
      60_000,
      'the crossing of 1 signature handed over by the dispatcher',
    );
    const { client } = testEnvironment().temporal;
    const handle = client.workflow.getHandle(petitionWorkflowId(petition.id));
    const events = (await handle.fetchHistory()).events!;
    expect(events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'milestoneReached')).to.deep.equal([]);
    expect(await workflowStarted(`signer-notifications-milestone-${petition.id}-1`)).to.equal(false);
    // The creator still hears of it, through the outbox's signature.milestone event.
    await eventually(async () => ((await milestoneNotifications(creator)).length >= 1 ? true : undefined), 60_000, "the creator's notification");
  });
});
