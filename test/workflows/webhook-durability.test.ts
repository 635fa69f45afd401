// No event lost: the worker killed in the middle of retries or of a batch of first attempts, and Temporal
// stopped while events keep happening. Each test checks that every event reached the receiver afterwards.
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
    // A batch whose dispatcher was killed mid-send is sent again once its lease (RALLY_WEBHOOK_TIMEOUT + 10 s) runs out.
    const statuses = await eventually(
      async () => {
        const rows = await testEnvironment().db.anyFirst(
          sql.type(z.object({ status: z.string() }))`SELECT status FROM webhook_deliveries WHERE endpoint_id = ${webhookId} AND cause <> 'ping'`,
        );
        return rows.length === eventIds.length && rows.every((status) => status === 'delivered') ? rows : undefined;
      },
      60_000,
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
    const env = { ...SHORT_WINDOWS, RALLY_WEBHOOK_TIMEOUT: '6s', RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-batch-kill') };
    let worker: RallyProcess = await startWorker(env);
    try {
      const webhookId = await endpoint('/batch-kill', ['sleep:5000', '200']);
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
      // Sent again only under their own delivery ids: a receiver deduplicating on X-Rally-Delivery-Id sees each event once.
      const deliveryIds = receiver.received('/batch-kill').map((request) => String(request.headers['x-rally-delivery-id']));
      expect(new Set(deliveryIds).size).to.equal(eventIds.length);
    } finally {
      await worker.stop();
    }
  });

  it('sends first attempts while Temporal is stopped, keeps the failed ones waiting in PostgreSQL, and hands them over once it is back', async () => {
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
    const worker: RallyProcess = await startWorker(env);
    try {
      const healthy = await endpoint('/outage', ['200']);
      const failing = await endpoint('/outage-retry', ['500']);
      await temporal.stop();
      const eventIds: string[] = [];
      for (let index = 0; index < 5; index += 1) eventIds.push(await emitEvent(petitionId));
      // Nothing about a first attempt needs Temporal: both endpoints get theirs during the outage.
      await receiver.waitFor('/outage', 5);
      await receiver.waitFor('/outage-retry', 5);
      await expectAllDelivered(healthy, eventIds, '/outage');
      // The failed ones wait in PostgreSQL for their retry workflows.
      await eventually(
        async () => {
          const waiting = await testEnvironment().db.oneFirst(sql.type(z.object({ count: z.number() }))`
            SELECT count(*)::int AS count FROM webhook_retries_pending r JOIN webhook_deliveries d ON d.id = r.delivery_id WHERE d.endpoint_id = ${failing}
          `);
          return waiting === eventIds.length ? true : undefined;
        },
        30_000,
        'the failed first attempts waiting for Temporal',
      );
      expect(worker.child.exitCode, 'the worker kept running without Temporal').to.equal(null);
      receiver.script('/outage-retry', ['200']);
      temporal = await startTemporal();
      await expectAllDelivered(failing, eventIds, '/outage-retry');
      const attempts = receiver.received('/outage-retry').map((request) => String(request.headers['x-rally-delivery-id']));
      expect(new Set(attempts).size, 'one delivery id per event, every attempt under it').to.equal(eventIds.length);
    } finally {
      await worker.stop();
      await temporal.stop();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
