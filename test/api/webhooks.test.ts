import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('Webhook endpoints', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let token: string;
  let stranger: string;

  before(async () => {
    api = await startApi({ RALLY_WEBHOOK_ALLOW_PRIVATE: 'true' });
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
    stranger = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(() => api.stop());

  const call = (path: string, init: RequestInit & { credential?: string } = {}) =>
    fetch(`${api.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...bearer(init.credential ?? token), ...(init.headers as object) },
    });
  const create = async (body: object = { url: 'http://127.0.0.1:9/hook', events: ['signature.created'] }, credential = token) => {
    const response = await call('/v1/webhooks', { method: 'POST', body: JSON.stringify(body), credential });
    return { status: response.status, body: await json(response) };
  };

  describe('POST /v1/webhooks', () => {
    it('shows the secret once and stores it only encrypted', async () => {
      const { status, body } = await create();
      expect(status).to.equal(201);
      expect(body.data).to.include({ url: 'http://127.0.0.1:9/hook', is_active: true });
      expect(body.data.secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
      const shown = await json(await call(`/v1/webhooks/${body.data.id}`));
      expect(shown.data).to.not.have.property('secret');
      expect(JSON.stringify(await json(await call('/v1/webhooks')))).to.not.include(body.data.secret);
      const stored = await testEnvironment().db.oneFirst(sql.type(z.object({ secret_ciphertext: z.instanceof(Buffer) }))`
        SELECT secret_ciphertext FROM webhook_endpoints WHERE id = ${body.data.id}`);
      expect(stored.toString('latin1')).to.not.include(body.data.secret);
      expect(stored.length).to.equal(12 + 16 + body.data.secret.length);
    });

    it('answers 422 for an event name that does not exist', async () => {
      for (const events of [['petition.exploded'], []]) {
        const { status, body } = await create({ url: 'https://example.com/hook', events });
        expect(status, JSON.stringify(events)).to.equal(422);
        expect(body.errors[0].field).to.match(/^events/);
      }
    });

    it('accepts payment.completed, emitted when an organization is upgraded', async () => {
      const { status, body } = await create({ url: 'https://example.com/hook', events: ['payment.completed'] });
      expect(status).to.equal(201);
      expect(body.data.events).to.deep.equal(['payment.completed']);
    });
  });

  describe('ownership', () => {
    it("answers 404 to everyone but the endpoint's creator", async () => {
      const { body } = await create();
      const id = body.data.id;
      expect((await call(`/v1/webhooks/${id}`, { credential: stranger })).status).to.equal(404);
      expect((await call(`/v1/webhooks/${id}`, { method: 'PATCH', credential: stranger, body: JSON.stringify({ is_active: false }) })).status).to.equal(404);
      expect((await call(`/v1/webhooks/${id}/deliveries`, { credential: stranger })).status).to.equal(404);
      expect((await call(`/v1/webhooks/${id}/rotate-secret`, { method: 'POST', credential: stranger })).status).to.equal(404);
      expect((await call(`/v1/webhooks/${id}`, { method: 'DELETE', credential: stranger })).status).to.equal(404);
      const theirs = await json(await call('/v1/webhooks', { credential: stranger }));
      expect(theirs.data.map((endpoint: { id: string }) => endpoint.id)).to.not.include(id);
    });
  });

  describe('PATCH and DELETE /v1/webhooks/{id}', () => {
    it('changes url, events and is_active, then deletes', async () => {
      const { body } = await create();
      const id = body.data.id;
      const patched = await call(`/v1/webhooks/${id}`, {
        method: 'PATCH',
        body: JSON.stringify({ url: 'http://127.0.0.1:9/other', events: ['petition.published', 'petition.closed'], is_active: false }),
      });
      expect(patched.status).to.equal(200);
      expect((await json(patched)).data).to.deep.include({
        url: 'http://127.0.0.1:9/other',
        events: ['petition.published', 'petition.closed'],
        is_active: false,
      });
      expect((await call(`/v1/webhooks/${id}`, { method: 'PATCH', body: JSON.stringify({}) })).status).to.equal(422);
      expect((await call(`/v1/webhooks/${id}`, { method: 'DELETE' })).status).to.equal(204);
      expect((await call(`/v1/webhooks/${id}`)).status).to.equal(404);
    });

    it('answers a replay racing the deletion of its endpoint with 202 or 404, never 500', async () => {
      const statuses = new Set<number>();
      for (let round = 0; round < 20; round += 1) {
        const { body } = await create();
        const id = body.data.id;
        const replay = () =>
          call(`/v1/webhooks/${id}/replay`, { method: 'POST', body: JSON.stringify({ since: new Date(Date.now() - 60_000).toISOString() }) });
        const [deleted, ...replays] = await Promise.all([call(`/v1/webhooks/${id}`, { method: 'DELETE' }), replay(), replay(), replay()]);
        expect(deleted.status, 'deleting the endpoint').to.equal(204);
        for (const answer of replays) statuses.add(answer.status);
      }
      expect([...statuses].filter((status) => status !== 202 && status !== 404)).to.deep.equal([]);
    });

    it('answers 422 replay_window, naming the oldest time it can replay, for a since before the 30-day retention', async () => {
      const { body } = await create();
      const asked = Date.now();
      const replay = (since: Date) => call(`/v1/webhooks/${body.data.id}/replay`, { method: 'POST', body: JSON.stringify({ since: since.toISOString() }) });
      const response = await replay(new Date(asked - 31 * 86_400_000));
      expect(response.status).to.equal(422);
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const problem = await json(response);
      expect(problem.errors[0]).to.include({ field: 'since', code: 'replay_window' });
      const oldest = Date.parse(/\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(problem.detail)![0]);
      expect(oldest).to.be.within(asked - 30 * 86_400_000 - 1_000, Date.now() - 30 * 86_400_000 + 1_000);
      expect((await replay(new Date(Date.now() - 29 * 86_400_000))).status).to.equal(202);
    });
  });

  describe('POST /v1/webhooks/{id}/rotate-secret', () => {
    it('issues a new secret and reports the grace window of the old one', async () => {
      const { body } = await create();
      const response = await call(`/v1/webhooks/${body.data.id}/rotate-secret`, { method: 'POST' });
      expect(response.status).to.equal(200);
      const rotated = (await json(response)).data;
      expect(rotated.secret)
        .to.match(/^whsec_/)
        .and.not.equal(body.data.secret);
      const graceHours = (Date.parse(rotated.previous_secret_expires_at) - Date.now()) / 3_600_000;
      expect(graceHours).to.be.within(23.9, 24);
    });
  });

  describe('GET /v1/webhooks', () => {
    it('pages with a cursor', async () => {
      const fresh = (await login(api.baseUrl, await createTestUser())).accessToken;
      for (let index = 0; index < 3; index += 1) await create(undefined, fresh);
      const first = await json(await call('/v1/webhooks?limit=2', { credential: fresh }));
      expect(first.data).to.have.length(2);
      const second = await json(await call(`/v1/webhooks?limit=2&cursor=${first.pagination.next_cursor}`, { credential: fresh }));
      expect(second.data).to.have.length(1);
      expect(second.pagination.has_more).to.equal(false);
    });
  });
});

describe('Webhook URL guard (RALLY_WEBHOOK_ALLOW_PRIVATE unset)', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let token: string;

  before(async () => {
    api = await startApi();
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(() => api.stop());

  for (const url of [
    'http://example.com/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest',
    // 6to4, local-use NAT64 and IPv4-compatible forms of 10.0.0.1 (issue 42)
    'https://[2002:a00:1::1]/hook',
    'https://[64:ff9b:1::a00:1]/hook',
    'https://[::10.0.0.1]/hook',
    'https://user:pw@example.com/',
  ]) {
    it(`refuses ${url}`, async () => {
      const response = await fetch(`${api.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ url, events: ['signature.created'] }),
      });
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0]).to.include({ field: 'url', code: 'url_refused' });
    });
  }

  // Outside production (this API runs with NODE_ENV=test) a receiver on this machine needs no
  // setting (issue 47); production refuses it (test/core/webhooks/development-loopback.unit.test.ts).
  for (const url of ['http://localhost:8080/hook', 'https://127.0.0.1/hook', 'https://[::1]/hook', 'https://[::ffff:127.0.0.1]/x']) {
    it(`accepts ${url}, on this machine, outside production`, async () => {
      const response = await fetch(`${api.baseUrl}/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ url, events: ['signature.created'] }),
      });
      expect(response.status, await response.clone().text()).to.equal(201);
    });
  }
});
