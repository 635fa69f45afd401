import { expect } from 'chai';
import { z } from 'zod';
import { dispatchEventBatch } from '../../core/events/dispatch-queries.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow, emitEvent } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('limits on what one account can create', function () {
  this.timeout(120_000);
  let api: RunningApi;

  before(async () => {
    api = await startApi({ RALLY_WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  after(() => api.stop());

  const post = (path: string, credential: string, body: unknown) =>
    fetch(`${api.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(credential) }, body: JSON.stringify(body) });
  const createEndpoint = (credential: string) => post('/v1/webhooks', credential, { url: 'http://127.0.0.1:9/hook', events: ['signature.created'] });

  describe('POST /v1/api-keys', () => {
    it('answers 422 limit_reached past 25 live keys', async () => {
      const token = (await login(api.baseUrl, await createTestUser())).accessToken;
      for (let index = 0; index < 25; index += 1) expect((await post('/v1/api-keys', token, { name: `key ${index}`, scopes: ['read'] })).status).to.equal(201);
      const refused = await post('/v1/api-keys', token, { name: 'one too many', scopes: ['read'] });
      expect(refused.status).to.equal(422);
      expect((await json(refused)).code).to.equal('limit_reached');
    });
  });

  describe('POST /v1/webhooks', () => {
    it('answers 422 limit_reached past 20 endpoints', async () => {
      const token = (await login(api.baseUrl, await createTestUser())).accessToken;
      for (let index = 0; index < 20; index += 1) expect((await createEndpoint(token)).status).to.equal(201);
      const refused = await createEndpoint(token);
      expect(refused.status).to.equal(422);
      expect((await json(refused)).code).to.equal('limit_reached');
    });
  });

  describe('POST /v1/webhooks/:id/replay', () => {
    it('answers 429 with Retry-After on the 11th replay of one endpoint within an hour', async () => {
      const token = (await login(api.baseUrl, await createTestUser())).accessToken;
      const { data: endpoint } = await json(await createEndpoint(token));
      const since = new Date(Date.now() - 3_600_000).toISOString();
      for (let index = 0; index < 10; index += 1) expect((await post(`/v1/webhooks/${endpoint.id}/replay`, token, { since })).status).to.equal(202);
      const refused = await post(`/v1/webhooks/${endpoint.id}/replay`, token, { since });
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    });
  });

  describe('platform-wide endpoints', () => {
    it("need an administrator's full credential: a read_write key's endpoint hears only the admin's own petitions", async () => {
      const admin = await createTestUser({ admin: true });
      const token = (await login(api.baseUrl, admin)).accessToken;
      const readWrite = await createApiKey(api.baseUrl, token, 'read_write');
      const { data: byKey } = await json(await createEndpoint(readWrite.key));
      const { data: byToken } = await json(await createEndpoint(token));
      expect([byKey.platform_wide, byToken.platform_wide]).to.deep.equal([false, true]);

      const someoneElses = await createPetitionRow((await createTestUser()).id);
      await emitEvent(someoneElses);
      const { db } = testEnvironment();
      for (let round = await db.transaction((tx) => dispatchEventBatch(tx, 1000)); round.read > 0 || round.waiting;) {
        round = await db.transaction((tx) => dispatchEventBatch(tx, 1000));
      }
      const delivered = async (endpointId: string) =>
        db.oneFirst(sql.type(z.object({ count: z.number() }))`
        SELECT count(*)::int AS count FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.endpoint_id = ${endpointId} AND e.petition_id = ${someoneElses}`);
      expect(await delivered(byKey.id)).to.equal(0);
      expect(await delivered(byToken.id)).to.equal(1);

      // Replaying through the read_write key does not reach other people's petitions either.
      const replay = await post(`/v1/webhooks/${byToken.id}/replay`, readWrite.key, { since: new Date(Date.now() - 60_000).toISOString() });
      expect(replay.status).to.equal(202);
      expect((await json(replay)).data.replayed).to.equal(0);

      // A platform-wide endpoint hears every event in this run's shared database: left behind, it would
      // take a delivery of every later test's signature (and retry it against a port nobody answers).
      const removed = await fetch(`${api.baseUrl}/v1/webhooks/${byToken.id}`, { method: 'DELETE', headers: bearer(token) });
      expect(removed.status).to.equal(204);
    });
  });
});
