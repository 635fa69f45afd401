// No event lost: the worker killed in the middle of retries, and Temporal stopped while events keep
// happening. Each test checks that every event reached the receiver afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import { recordEvent } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/lib/temporal-dev-server.ts';
import { loadTemporalSettings } from '../../scripts/lib/temporal-settings.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow, emitEvent, eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { freePort, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('webhook delivery survives failures', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let receiver: WebhookReceiver;
  let token: string;
  let petitionId: string;

  before(async () => {
    receiver = await startWebhookReceiver();
    api = await startApi(SHORT_WINDOWS);
    const owner = await createTestUser();
    token = (await login(api.baseUrl, owner)).accessToken;
    petitionId = await createPetitionRow(owner.id);
  });
  after(async () => {
    await api.stop();
    await receiver.close();
  });

  async function endpoint(pathName: string, behaviours: string[]) {
    receiver.script(pathName, behaviours);
    const response = await fetch(`${api.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify({ url: receiver.url(pathName), events: ['signature.created'] }),
    });
    return (await json(response)).data.id as string;
  }
  const arrivedEventIds = (pathName: string) => new Set(receiver.received(pathName).map((request) => JSON.parse(request.body).id as string));
  async function expectAllDelivered(webhookId: string, eventIds: string[], pathName: string) {
    await eventually(async () => (eventIds.every((id) => arrivedEventIds(pathName).has(id)) ? true : undefined), 60_000, 'every event arriving');
    const statuses = await eventually(
      async () => {
        const rows = await testEnvironment().db.anyFirst(
          sql.type(z.object({ status: z.string() }))`SELECT status FROM webhook_deliveries WHERE endpoint_id = ${webhookId} AND cause <> 'ping'`,
        );
        return rows.length === eventIds.length && rows.every((status) => status === 'delivered') ? rows : undefined;
      },
      30_000,
      'every delivery recorded as delivered',
    );
    expect(statuses).to.have.length(eventIds.length);
  }

  it('delivers every event when the worker is killed in the middle of retries', async () => {
    const env = { ...SHORT_WINDOWS, RALLY_WEBHOOK_RETRY_INITIAL: '2s', RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-kill') };
    let worker: RallyProcess = await startWorker(env);
    try {
      const webhookId = await endpoint('/kill', ['500', '500', '500', '500', '500', '200']);
      const eventIds: string[] = [];
      for (let index = 0; index < 10; index += 1) eventIds.push(await emitEvent(petitionId));
      await receiver.waitFor('/kill', 5);
      await worker.stop('SIGKILL');
      eventIds.push(await emitEvent(petitionId), await emitEvent(petitionId));
      worker = await startWorker(env);
      await expectAllDelivered(webhookId, eventIds, '/kill');
    } finally {
      await worker.stop();
    }
  });

  it('delivers every event of a batch whose worker was killed while it was sending the batch', async () => {
    // A long timeout, so the batch is still waiting for its slow first answer when the worker dies.
    const env = { ...SHORT_WINDOWS, RALLY_WEBHOOK_TIMEOUT: '20s', RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-batch-kill') };
    let worker: RallyProcess = await startWorker(env);
    try {
      const webhookId = await endpoint('/batch-kill', ['sleep:15000', '200']);
      const eventIds = await testEnvironment().db.transaction(async (tx) => {
        const ids: string[] = [];
        for (let index = 0; index < 5; index += 1)
          ids.push(
            await recordEvent(tx, { type: 'signature.created', actor: { type: 'system', id: null }, petitionId, data: { petition_id: petitionId, index } }),
          );
        return ids;
      });
      // Four answered at once; the batch still waits for the fifth, which the receiver holds back.
      await receiver.waitFor('/batch-kill', 4);
      await worker.stop('SIGKILL');
      worker = await startWorker(env);
      await expectAllDelivered(webhookId, eventIds, '/batch-kill');
    } finally {
      await worker.stop();
    }
  });

  it('delivers every event recorded while Temporal was stopped, once it is back', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'rally-temporal-'));
    const settings = loadTemporalSettings();
    const port = await freePort();
    const startTemporal = async () =>
      startTemporalDevServer({
        cliPath: process.env.RALLY_TEMPORAL_CLI!,
        dbFile: path.join(directory, 'temporal.sqlite'),
        port,
        uiPort: await freePort(),
        namespace: 'default',
        searchAttributes: settings.searchAttributes,
        log: () => {},
      });
    let temporal: TemporalDevServer = await startTemporal();
    const env = {
      ...SHORT_WINDOWS,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-temporal-down'),
    };
    let worker: RallyProcess = await startWorker(env);
    try {
      const webhookId = await endpoint('/outage', ['200']);
      const eventIds = [await emitEvent(petitionId), await emitEvent(petitionId)];
      await receiver.waitFor('/outage', 2);
      await temporal.stop();
      for (let index = 0; index < 5; index += 1) eventIds.push(await emitEvent(petitionId));
      // The dispatcher goes on without Temporal, turning the new events into delivery rows that wait
      // for it (unless its worker gave up on Temporal and exited, see below).
      await eventually(
        async () => {
          if (worker.child.exitCode !== null) return true;
          const recorded = await testEnvironment().db.oneFirst(sql.type(z.object({ count: z.number() }))`
          SELECT count(*)::int AS count FROM webhook_deliveries WHERE endpoint_id = ${webhookId} AND cause <> 'ping'
        `);
          return recorded === eventIds.length ? true : undefined;
        },
        30_000,
        'the deliveries recorded while Temporal is down',
      );
      expect(receiver.received('/outage')).to.have.length(2);
      temporal = await startTemporal();
      // A worker that gave up on its connection while Temporal was gone is restarted, as a supervisor would.
      if (worker.child.exitCode !== null) worker = await startWorker(env);
      await expectAllDelivered(webhookId, eventIds, '/outage');
    } finally {
      await worker.stop();
      await temporal.stop();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
