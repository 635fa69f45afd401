// The ping (issue 47, webhooks on a laptop): every new endpoint gets a signed `ping` event, to it alone,
// and POST /v1/webhooks/{id}/test sends one now and answers with its first attempt. Real API and
// worker processes and a local receiver.
import { verify } from '@octokit/webhooks-methods';
import { expect } from 'chai';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('webhook pings', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;
  let token: string;

  before(async () => {
    const env = { ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-ping') };
    receiver = await startWebhookReceiver();
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  const call = async (path: string, init: RequestInit & { credential?: string } = {}) => {
    const response = await fetch(`${api.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...bearer(init.credential ?? token) },
    });
    return { status: response.status, headers: response.headers, body: response.status === 204 ? undefined : await json(response) };
  };
  async function endpoint(path: string) {
    const { status, body } = await call('/v1/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url(path), events: ['petition.created'] }) });
    expect(status).to.equal(201);
    return body.data as { id: string; secret: string; url: string };
  }
  const test = (id: string, credential?: string) => call(`/v1/webhooks/${id}/test`, { method: 'POST', credential });

  it('sends every new endpoint a signed ping of its own, which no other endpoint receives', async () => {
    const first = await endpoint('/first');
    const second = await endpoint('/second');
    for (const [hook, path] of [
      [first, '/first'],
      [second, '/second'],
    ] as const) {
      const [ping] = await receiver.waitFor(path, 1, 30_000, 'pings');
      expect(await verify(hook.secret, ping!.body, String(ping!.headers['x-rally-signature'])), path).to.equal(true);
      const payload = JSON.parse(ping!.body);
      expect(payload).to.deep.include({ type: 'ping', data: { webhook_id: hook.id, url: hook.url, events: ['petition.created'] } });
      const listed = (await call(`/v1/webhooks/${hook.id}/deliveries`)).body.data;
      expect(listed.map((delivery: { cause: string; event_type: string }) => [delivery.cause, delivery.event_type])).to.deep.equal([['ping', 'ping']]);
    }
    // Given time to stray, the second endpoint's ping still reached only the second endpoint.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.pings('/first')).to.have.length(1);
    expect(receiver.pings('/second')).to.have.length(1);
  });

  it('POST /v1/webhooks/{id}/test sends a ping now and answers with its attempt: status code, time, first bytes', async () => {
    const hook = await endpoint('/tested');
    await receiver.waitFor('/tested', 1, 30_000, 'pings');
    receiver.scriptPings('/tested', ['200', '200', '503']);
    const sent = await test(hook.id);
    expect(sent.status, JSON.stringify(sent.body)).to.equal(200);
    expect(sent.body.data).to.include({ webhook_id: hook.id, event_type: 'ping', cause: 'ping', status: 'delivered' });
    expect(sent.body.data.attempts).to.have.length(1);
    expect(sent.body.data.attempts[0]).to.include({ attempt: 1, status_code: 200, error: null, response_excerpt: 'answer 2: 200' });
    expect(sent.body.data.attempts[0].attempted_at).to.be.a('string');
    expect(sent.headers.get('location')).to.equal(`/v1/webhooks/${hook.id}/deliveries/${sent.body.data.id}`);
    const [, arrived] = receiver.pings('/tested');
    expect(arrived!.headers['x-rally-delivery-id']).to.equal(sent.body.data.id);
    expect(await verify(hook.secret, arrived!.body, String(arrived!.headers['x-rally-signature']))).to.equal(true);

    // A receiver that fails is shown failing, and the ping is retried like any delivery.
    const failed = await test(hook.id);
    expect(failed.status).to.equal(200);
    expect(failed.body.data).to.include({ status: 'retrying' });
    expect(failed.body.data.attempts[0]).to.include({ attempt: 1, status_code: 503, error: 'HTTP 503', response_excerpt: 'answer 3: 503' });
  });

  it('answers 404 for an endpoint of someone else, 409 for one switched off, 429 past 30 pings an hour', async () => {
    const hook = await endpoint('/limits');
    const stranger = (await login(api.baseUrl, await createTestUser())).accessToken;
    expect((await test(hook.id, stranger)).status).to.equal(404);

    await call(`/v1/webhooks/${hook.id}`, { method: 'PATCH', body: JSON.stringify({ is_active: false }) });
    const off = await test(hook.id);
    expect([off.status, off.body.code]).to.deep.equal([409, 'webhook_inactive']);
    await call(`/v1/webhooks/${hook.id}`, { method: 'PATCH', body: JSON.stringify({ is_active: true }) });

    // 29 more pings within the hour, already sent, beside the creation ping: the 31st is refused.
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO webhook_deliveries (endpoint_id, event_id, cause, status, started_at, finished_at)
      SELECT d.endpoint_id, d.event_id, 'ping', 'delivered', now(), now()
      FROM webhook_deliveries d CROSS JOIN generate_series(1, 29)
      WHERE d.endpoint_id = ${hook.id} AND d.cause = 'ping'`);
    const refused = await test(hook.id);
    expect([refused.status, refused.body.code]).to.deep.equal([429, 'ping_limit']);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
  });

  it('answers 202 with the queued delivery when no attempt was made in time (here: no worker running)', async () => {
    const hook = await endpoint('/queued');
    await receiver.waitFor('/queued', 1, 30_000, 'pings');
    await worker.stop();
    const queued = await test(hook.id);
    expect(queued.status).to.equal(202);
    expect(queued.body.data).to.include({ cause: 'ping', status: 'pending', attempt_count: 0 });
    expect(queued.body.data.attempts).to.deep.equal([]);
    worker = await startWorker({ ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('webhook-ping') });
    await receiver.waitFor('/queued', 2, 30_000, 'pings');
  });
});
