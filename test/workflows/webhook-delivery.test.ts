// Deliveries end to end: a real API and worker process (with its dispatcher), events recorded in the
// outbox, and a local receiver that checks signatures with @octokit/webhooks-methods.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { z } from 'zod';
import { recordEvent } from '../../core/events/record-event.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow, emitEvent, eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

describe('webhook delivery', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;
  let owner: TestUser;
  let token: string;
  let petitionId: string;
  const env = { ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('webhooks') };

  before(async () => {
    receiver = await startWebhookReceiver();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    owner = await createTestUser();
    token = (await login(api.baseUrl, owner)).accessToken;
    petitionId = await createPetitionRow(owner.id);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token) } });
    return { status: response.status, body: await json(response) };
  };
  async function endpoint(path: string, behaviours: string[], events = ['signature.created', 'signature.milestone']) {
    receiver.script(path, behaviours);
    const { body } = await call('/v1/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url(path), events }) });
    return body.data as { id: string; secret: string };
  }
  const deliveryOf = (webhookId: string, deliveryId: string) => call(`/v1/webhooks/${webhookId}/deliveries/${deliveryId}`).then((answer) => answer.body.data);
  async function finishedDelivery(webhookId: string, deliveryId: string) {
    return eventually(
      async () => {
        const delivery = await deliveryOf(webhookId, deliveryId);
        return delivery.finished_at ? delivery : undefined;
      },
      30_000,
      `delivery ${deliveryId} finishing`,
    );
  }

  /** The workflows of a delivery, found the way an operator finds them in the Web UI. */
  async function listWorkflowsOf(deliveryId: string): Promise<string[]> {
    const found: string[] = [];
    for await (const execution of testEnvironment().temporal.client.workflow.list({ query: `RallyWebhookDeliveryId = "${deliveryId}"` }))
      found.push(execution.workflowId);
    return found;
  }
  const workflowsOf = (deliveryId: string) =>
    eventually(async () => ((await listWorkflowsOf(deliveryId)).length > 0 ? listWorkflowsOf(deliveryId) : undefined), 15_000, `the workflow of ${deliveryId}`);
  const batchOf = (deliveryIds: readonly string[]) =>
    testEnvironment().db.anyFirst(
      sql.type(z.object({ batch_id: z.string() }))`SELECT DISTINCT batch_id FROM webhook_deliveries WHERE id = ANY(${sql.array([...deliveryIds], 'uuid')})`,
    );

  /** The delivery row finishes inside the last activity; the workflow closes a moment later. */
  async function captureFinished(name: string, workflowId: string) {
    const handle = testEnvironment().temporal.client.workflow.getHandle(workflowId);
    await handle.result();
    await captureHistory(name, handle);
  }
  const windowOf = (webhookId: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ delivery_window: z.number() }))`SELECT delivery_window FROM webhook_endpoints WHERE id = ${webhookId}`);

  it('sends a signed event that a GitHub verifier accepts, and lists the delivery', async () => {
    const hook = await endpoint('/ok', ['200']);
    const eventId = await emitEvent(petitionId, 'signature.created', { signature_count: 1 });
    const [request] = await receiver.waitFor('/ok', 1);
    expect(await verify(hook.secret, request!.body, String(request!.headers['x-rally-signature']))).to.equal(true);
    const payload = JSON.parse(request!.body);
    expect(payload).to.deep.include({ id: eventId, type: 'signature.created', triggered_by: { type: 'system', id: null } });
    expect(payload.data).to.deep.include({ signature_count: 1 });
    expect(request!.headers['x-rally-event']).to.equal('signature.created');
    expect(request!.headers['x-rally-timestamp']).to.equal(payload.created_at);
    // Stripe's scheme beside GitHub's: the HMAC covers "t.body", and t is the time of sending.
    const [, sentAt, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request!.headers['x-rally-signature-v2'])) ?? [];
    expect(Math.abs(Number(sentAt) - request!.receivedAt / 1000)).to.be.below(300);
    expect(v1).to.equal(createHmac('sha256', hook.secret).update(`${sentAt}.${request!.body}`).digest('hex'));
    const deliveryId = String(request!.headers['x-rally-delivery-id']);
    const delivery = await finishedDelivery(hook.id, deliveryId);
    expect(delivery).to.include({ status: 'delivered', attempt_count: 1, event_id: eventId });
    expect(delivery.attempts).to.have.length(1);
    expect(delivery.attempts[0]).to.include({ attempt: 1, status_code: 200, error: null, response_excerpt: 'answer 1: 200' });
    const listed = await call(`/v1/webhooks/${hook.id}/deliveries?status=delivered`);
    const events = listed.body.data.filter((entry: { cause: string }) => entry.cause !== 'ping');
    expect(events.map((entry: { id: string }) => entry.id)).to.deep.equal([deliveryId]);
    expect((await call(`/v1/webhooks/${hook.id}/deliveries?status=failed`)).body.data).to.deep.equal([]);
    // A first attempt is not long-running: it left from the dispatcher, and no workflow was needed.
    expect(delivery.retry_workflow_id).to.equal(null);
    expect(await listWorkflowsOf(deliveryId)).to.deep.equal([]);
  });

  it('sends events that arrive together in one batch, and widens the window', async () => {
    const hook = await endpoint('/together', ['200']);
    const eventIds = await testEnvironment().db.transaction(async (tx) => {
      const ids: string[] = [];
      for (let index = 0; index < 5; index += 1)
        ids.push(
          await recordEvent(tx, { type: 'signature.created', actor: { type: 'system', id: null }, petitionId, data: { petition_id: petitionId, index } }),
        );
      return ids;
    });
    const requests = await receiver.waitFor('/together', 5);
    expect(requests.map((request) => JSON.parse(request.body).id)).to.have.members(eventIds);
    const deliveryIds = requests.map((request) => String(request.headers['x-rally-delivery-id']));
    for (const deliveryId of deliveryIds) expect(await finishedDelivery(hook.id, deliveryId)).to.include({ status: 'delivered', attempt_count: 1 });
    expect(await batchOf(deliveryIds), 'one batch for the five deliveries').to.have.length(1);
    expect(await windowOf(hook.id)).to.be.above(8);
  });

  it('ends delivered after 4 attempts when the receiver fails 3 times first', async () => {
    const hook = await endpoint('/flaky', ['500', '503', '404', '200']);
    await emitEvent(petitionId);
    const requests = await receiver.waitFor('/flaky', 4);
    const deliveryIds = new Set(requests.map((request) => request.headers['x-rally-delivery-id']));
    expect(deliveryIds.size, 'every retry carries the same delivery id').to.equal(1);
    const deliveryId = String([...deliveryIds][0]);
    const delivery = await finishedDelivery(hook.id, deliveryId);
    expect(delivery).to.include({ status: 'delivered', attempt_count: 4 });
    expect(delivery.attempts.map((attempt: { status_code: number }) => attempt.status_code)).to.deep.equal([500, 503, 404, 200]);
    // The first attempt went out from the dispatcher; the retries in the delivery's own workflow, id = the delivery id.
    expect(delivery.retry_workflow_id).to.equal(deliveryId);
    expect(await workflowsOf(deliveryId)).to.deep.equal([deliveryId]);
    await captureFinished('webhook-delivery-retried-after-dispatcher', deliveryId);
  });

  it('ends failed after 6 attempts, deactivates the endpoint and tells its owner', async () => {
    const hook = await endpoint('/down', ['500']);
    await emitEvent(petitionId);
    const requests = await receiver.waitFor('/down', 6);
    const deliveryId = String(requests[0]!.headers['x-rally-delivery-id']);
    const delivery = await finishedDelivery(hook.id, deliveryId);
    expect(delivery).to.include({ status: 'failed', attempt_count: 6, last_status_code: 500 });
    expect(delivery.attempts).to.have.length(6);
    // Delays start at 200 ms and double, ±20% (Temporal runs retry timers at no less than about a second).
    const gaps = requests.slice(1).map((request, index) => request.receivedAt - requests[index]!.receivedAt);
    expect(gaps[4]!).to.be.within(2_400, 4_200);
    expect(gaps[4]!).to.be.greaterThan(gaps[3]!);
    // The first retry waits for its own workflow to start after the batch: only later gaps show the doubling.
    expect(gaps[4]!).to.be.greaterThan(gaps[0]!);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received('/down')).to.have.length(6);
    const shown = (await call(`/v1/webhooks/${hook.id}`)).body.data;
    expect(shown.is_active).to.equal(false);
    expect(shown.deactivation_reason).to.match(/failed since/);
    const notifications = (await call('/v1/notifications')).body.data;
    expect(
      notifications.map((notification: { type: string; data: { webhook_id?: string } }) => [notification.type, notification.data.webhook_id]),
    ).to.deep.include(['webhook.deactivated', hook.id]);
    // The first attempt failed: the endpoint's delivery window halved from its initial 8.
    expect(await windowOf(hook.id)).to.equal(4);
    await captureFinished('webhook-delivery-failed-after-batch', deliveryId);
  });

  it('counts an answer that comes after RALLY_WEBHOOK_TIMEOUT as a failed attempt', async () => {
    const hook = await endpoint('/slow', ['sleep:1500', '200']);
    await emitEvent(petitionId);
    const requests = await receiver.waitFor('/slow', 2);
    const delivery = await finishedDelivery(hook.id, String(requests[1]!.headers['x-rally-delivery-id']));
    expect(delivery).to.include({ status: 'delivered', attempt_count: 2 });
    expect(delivery.attempts[0]).to.include({ status_code: null, error: 'no answer within 1000 ms' });
    expect(delivery.attempts[0].latency_ms).to.be.within(900, 1400);
  });

  it('signs with both secrets during a rotation, each verifiable by an unchanged GitHub verifier', async () => {
    const hook = await endpoint('/rotating', ['200']);
    const rotated = (await call(`/v1/webhooks/${hook.id}/rotate-secret`, { method: 'POST' })).body.data;
    await emitEvent(petitionId);
    const [request] = await receiver.waitFor('/rotating', 1);
    expect(await verify(rotated.secret, request!.body, String(request!.headers['x-rally-signature']))).to.equal(true);
    expect(await verify(hook.secret, request!.body, String(request!.headers['x-rally-signature-previous']))).to.equal(true);
    expect(await verify(hook.secret, request!.body, String(request!.headers['x-rally-signature']))).to.equal(false);
  });

  it('redelivers a delivery under a new id, and replays events since a time', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const hook = await endpoint('/replay', ['200'], ['signature.milestone']);
    await emitEvent(petitionId, 'signature.milestone', { threshold: 10 });
    await emitEvent(petitionId, 'signature.milestone', { threshold: 100 });
    const first = await receiver.waitFor('/replay', 2);
    const original = String(first[0]!.headers['x-rally-delivery-id']);
    await finishedDelivery(hook.id, original);
    const again = await call(`/v1/webhooks/${hook.id}/deliveries/${original}/redeliver`, { method: 'POST' });
    expect(again.status).to.equal(202);
    expect(again.body.data).to.include({ cause: 'redelivery', status: 'pending' }).and.not.include({ id: original });
    const replay = await call(`/v1/webhooks/${hook.id}/replay`, { method: 'POST', body: JSON.stringify({ since }) });
    expect(replay.status).to.equal(202);
    expect(replay.body.data).to.deep.equal({ replayed: 2, next_since: null });
    const all = await receiver.waitFor('/replay', 5);
    expect(new Set(all.map((request) => JSON.parse(request.body).id)).size, 'two events, five copies').to.equal(2);
    expect(new Set(all.map((request) => request.headers['x-rally-delivery-id'])).size).to.equal(5);
  });

  it('notifies the petition creator of a milestone reached, honouring preferences', async () => {
    const reached = await emitEvent(petitionId, 'signature.milestone', { threshold: 1000 });
    const found = await eventually(
      async () => {
        const list = (await call('/v1/notifications')).body.data as { type: string; data: { event_id: string } }[];
        return list.find((notification) => notification.data.event_id === reached);
      },
      15_000,
      'the milestone notification',
    );
    expect(found).to.include({ type: 'petition.milestone' });
    await call('/v1/notifications/preferences', { method: 'PATCH', body: JSON.stringify({ 'petition.milestone': { in_app: false } }) });
    const muted = await emitEvent(petitionId, 'signature.milestone', { threshold: 5000 });
    await endpoint('/muted', ['200'], ['signature.milestone']);
    const marker = await emitEvent(petitionId, 'signature.milestone', { threshold: 10_000 });
    await eventually(
      async () => (receiver.received('/muted').some((request) => JSON.parse(request.body).id === marker) ? true : undefined),
      15_000,
      'the marker event',
    );
    const list = (await call('/v1/notifications')).body.data as { data: { event_id: string } }[];
    expect(list.map((notification) => notification.data.event_id)).to.not.include(muted);
  });
});

describe('webhook delivery to one destination across endpoints', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let destination: Server;
  let inFlight = 0;
  let peak = 0;
  let arrived = 0;
  const env = { ...SHORT_WINDOWS, RALLY_WEBHOOK_TIMEOUT: '2s', RALLY_WEBHOOK_HOST_CONCURRENCY: '2', RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-destinations') };

  before(async () => {
    // One machine behind many endpoints: it counts the requests it holds at once, each for 150 ms.
    destination = createServer((request, response) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      request.resume().on('end', () =>
        setTimeout(() => {
          inFlight -= 1;
          // Each endpoint's creation ping counts in the host's budget, not among the events awaited.
          if (request.headers['x-rally-event'] !== 'ping') arrived += 1;
          response.end('ok');
        }, 150),
      );
    });
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    destination.closeAllConnections();
    await new Promise((resolve) => destination.close(resolve));
  });

  it('keeps at most RALLY_WEBHOOK_HOST_CONCURRENCY requests in flight to one host, whichever endpoints name it, and delivers them all', async () => {
    const owner = await createTestUser();
    const token = (await login(api.baseUrl, owner)).accessToken;
    const { port } = destination.address() as AddressInfo;
    for (const path of ['/a', '/b', '/c']) {
      const created = await fetch(`${api.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}${path}`, events: ['signature.created'] }),
      });
      expect(created.status).to.equal(201);
    }
    const petition = await createPetitionRow(owner.id);
    for (let index = 0; index < 4; index += 1) await emitEvent(petition);
    // 3 endpoints × 4 events; each endpoint alone may have several in flight.
    await eventually(async () => (arrived >= 12 ? true : undefined), 60_000, 'all 12 deliveries');
    expect(peak).to.equal(2);
  });
});
