// Milestone notifications: the outbox dispatcher announces crossings in rounds, telling the organization's admins at once and handing the crossings
// signers opted in to petition.milestone for to one notifyPetitionSigners workflow per round, once per threshold. No crossing is a signal to the
// petition's lifecycle workflow any more, and a crossing nobody but the creator hears of starts no workflow at all.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { petitionWorkflowId } from '../../workflows/index.ts';
import type { NotifyPetitionSignersInput } from '../../workflows/signer-notifications.ts';
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

describe('milestone notifications in rounds', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers as object) } });
  let taskQueue: string;
  /** The signer fan-outs of this file's worker that tell the petition's signers of a milestone, with their first run's input. */
  const fanOutsFor = async (petitionId: string) => {
    const { client } = testEnvironment().temporal;
    const found: { workflowId: string; input: NotifyPetitionSignersInput }[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = 'notifyPetitionSigners' AND TaskQueue = '${taskQueue}'` })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      const input = JSON.parse(Buffer.from(started.data!).toString('utf8')) as NotifyPetitionSignersInput;
      if ([input, ...(input.then ?? [])].some((notice) => notice.petitionId === petitionId)) found.push({ workflowId: execution.workflowId, input });
    }
    return found;
  };
  const milestoneSignals = async (petitionId: string) => {
    const handle = testEnvironment().temporal.client.workflow.getHandle(petitionWorkflowId(petitionId));
    const history = await handle.fetchHistory().catch(() => undefined);
    return (history?.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'milestoneReached');
  };
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
    taskQueue = uniqueTaskQueue('milestones');
    const env = { RALLY_TASK_QUEUE: taskQueue, RALLY_SIGN_LIMIT_PER_HOUR: '1000' };
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

    expect(await milestoneSignals(petition.id)).to.deep.equal([]);
    const thresholdsTold = (fanOuts: Awaited<ReturnType<typeof fanOutsFor>>) =>
      fanOuts
        .flatMap(({ input }) => [input, ...(input.then ?? [])])
        .filter((notice) => notice.petitionId === petition.id)
        .map((notice) => notice.data.threshold as number)
        .sort();
    // The visibility store lists a started workflow a moment later.
    const fanOuts = await eventually(
      async () => {
        const found = await fanOutsFor(petition.id);
        return thresholdsTold(found).length >= 2 ? found : undefined;
      },
      30_000,
      'the signer fan-outs in the visibility store',
    );
    expect(thresholdsTold(fanOuts)).to.deep.equal([1, 2]);
    // The histories hold crossings, never single signatures: no event names a signature. (Their length
    // is no measure of that: a loaded machine adds workflow-task timeouts and retries.)
    const { client } = testEnvironment().temporal;
    for (const { workflowId } of fanOuts) {
      const handle = client.workflow.getHandle(workflowId);
      await handle.result();
      const recorded = readableText(await handle.fetchHistory());
      for (const signatureId of signatureIds) expect(recorded).not.to.include(signatureId);
    }
    await captureHistory('notify-petition-signers-milestone-round', client.workflow.getHandle(fanOuts[0]!.workflowId));
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
    expect(await milestoneSignals(petition.id)).to.deep.equal([]);
    expect(await fanOutsFor(petition.id)).to.deep.equal([]);
  });

  it('announces a crossing nobody hears of without starting any workflow', async () => {
    const [creator, signer] = await Promise.all([person(), person()]);
    const petition = await publishedPetition(api.baseUrl, creator.token, { signatureGoal: 4 });
    expect((await call(`/v1/petitions/${petition.id}/signatures`, signer.token, { method: 'POST', body: '{}' })).status).to.equal(201);

    await eventually(
      async () => ((await crossingHandedOver(petition.id, 1)) ? true : undefined),
      60_000,
      'the crossing of 1 signature handed over by the dispatcher',
    );
    expect(await milestoneSignals(petition.id)).to.deep.equal([]);
    expect(await fanOutsFor(petition.id)).to.deep.equal([]);
    // The creator still hears of it, through the outbox's signature.milestone event.
    await eventually(async () => ((await milestoneNotifications(creator)).length >= 1 ? true : undefined), 60_000, "the creator's notification");
  });
});
