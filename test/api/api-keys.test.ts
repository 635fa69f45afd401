import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';
import { expectTwelveMonthsNotice } from '../support/deprecation.ts';

describe('API keys', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let token: string;

  before(async () => {
    api = await startApi();
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(() => api.stop());

  const call = (path: string, init: RequestInit & { credential?: string } = {}) =>
    fetch(`${api.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...bearer(init.credential ?? token), ...(init.headers as object) },
    });

  describe('POST /v1/api-keys', () => {
    it('shows the raw key once and stores only its prefix', async () => {
      const created = await createApiKey(api.baseUrl, token, 'read', 'ci key');
      expect(created.key).to.match(/^rally_live_[A-Za-z0-9_-]{43}$/);
      expect(created.key.startsWith(created.prefix)).to.equal(true);
      const listed = await json(await call('/v1/api-keys'));
      const entry = listed.data.find((key: { id: string }) => key.id === created.id);
      expect(entry).to.include({ name: 'ci key', status: 'active' }).and.not.have.property('key');
      expect(JSON.stringify(listed)).to.not.include(created.key);
    });

    it('answers 422 for an empty name and an unknown scope', async () => {
      const response = await call('/v1/api-keys', { method: 'POST', body: JSON.stringify({ name: '', scopes: ['everything'] }) });
      expect(response.status).to.equal(422);
      const codes = (await json(response)).errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`);
      expect(codes).to.include('name:too_small');
    });
  });

  describe('using a key', () => {
    it('authenticates as Authorization: Bearer', async () => {
      const { key } = await createApiKey(api.baseUrl, token, 'read');
      const response = await call('/v1/users/me', { credential: key });
      expect(response.status).to.equal(200);
      expect(response.headers.get('deprecation')).to.equal(null);
    });

    it('still works as X-API-Key, marked deprecated with a Sunset 12 months after its deprecation', async () => {
      const { key } = await createApiKey(api.baseUrl, token, 'read');
      const response = await fetch(`${api.baseUrl}/v1/users/me`, { headers: { 'x-api-key': key } });
      expect(response.status).to.equal(200);
      expectTwelveMonthsNotice(response.headers);
      expect(response.headers.get('link')).to.equal('</docs#authentication>; rel="deprecation"');
    });

    it('answers 401 for a key that was never issued', async () => {
      const response = await call('/v1/users/me', { credential: `rally_live_${'A'.repeat(43)}` });
      expect(response.status).to.equal(401);
      expect((await json(response)).code).to.equal('invalid_api_key');
    });
  });

  describe('PATCH /v1/api-keys/{id}', () => {
    it('renames a key', async () => {
      const { id } = await createApiKey(api.baseUrl, token, 'read');
      const response = await call(`/v1/api-keys/${id}`, { method: 'PATCH', body: JSON.stringify({ name: 'renamed' }) });
      expect(response.status).to.equal(200);
      expect((await json(response)).data.name).to.equal('renamed');
    });

    it('will not let a read_write key widen a key to full', async () => {
      const writer = await createApiKey(api.baseUrl, token, 'read_write');
      const { id } = await createApiKey(api.baseUrl, token, 'read');
      const response = await call(`/v1/api-keys/${id}`, { method: 'PATCH', credential: writer.key, body: JSON.stringify({ scopes: ['full'] }) });
      expect(response.status).to.equal(403);
    });
  });

  describe('DELETE /v1/api-keys/{id}', () => {
    it('revokes the key at once and for good', async () => {
      const { id, key } = await createApiKey(api.baseUrl, token, 'full');
      expect((await call(`/v1/api-keys/${id}`, { method: 'DELETE' })).status).to.equal(204);
      expect((await call('/v1/users/me', { credential: key })).status).to.equal(401);
      expect((await call(`/v1/api-keys/${id}`, { method: 'DELETE' })).status).to.equal(404);
    });

    it("answers 404 for another user's key", async () => {
      const stranger = (await login(api.baseUrl, await createTestUser())).accessToken;
      const { id } = await createApiKey(api.baseUrl, stranger, 'read');
      expect((await call(`/v1/api-keys/${id}`, { method: 'DELETE' })).status).to.equal(404);
      expect((await call(`/v1/api-keys/${id}`)).status).to.equal(404);
    });
  });

  describe('GET /v1/api-keys/{id}', () => {
    it('answers 422 for an id that is not a UUID', async () => {
      const response = await call('/v1/api-keys/not-a-uuid');
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0]).to.include({ field: 'id', code: 'invalid_format' });
    });
  });

  describe('GET /v1/api-keys', () => {
    it('pages with a cursor and rejects a tampered one with 400', async () => {
      for (let index = 0; index < 3; index += 1) await createApiKey(api.baseUrl, token, 'read', `page-${index}`);
      const first = await json(await call('/v1/api-keys?limit=2'));
      expect(first.data).to.have.length(2);
      expect(first.pagination.has_more).to.equal(true);
      const second = await json(await call(`/v1/api-keys?limit=2&cursor=${first.pagination.next_cursor}`));
      expect(second.data[0].id).to.not.equal(first.data[1].id);
      const tampered = await call(`/v1/api-keys?cursor=${first.pagination.next_cursor}x`);
      expect(tampered.status).to.equal(400);
      expect((await json(tampered)).type).to.match(/invalid-cursor$/);
    });
  });
});
