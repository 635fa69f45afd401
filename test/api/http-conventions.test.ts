import { json } from '../support/http.ts';
import { expect } from 'chai';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

describe('HTTP conventions', function () {
  this.timeout(60_000);
  let api: RunningApi;

  before(async () => {
    api = await startApi();
  });
  after(async () => {
    await api.stop();
  });

  const request = (path: string, init?: RequestInit) => fetch(`${api.baseUrl}${path}`, init);

  describe('an unknown route', () => {
    it('answers a 404 problem with X-API-Version: 1', async () => {
      const response = await request('/v1/nothing-here');
      expect(response.status).to.equal(404);
      expect(response.headers.get('x-api-version')).to.equal('1');
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const problem = await json(response);
      expect(problem).to.include({ type: `${PUBLIC_URL}/problems/not-found`, title: 'Not found', status: 404, instance: '/v1/nothing-here' });
      expect(problem.detail).to.be.a('string').and.equal(problem.message);
    });
  });

  describe('a known route with the wrong method', () => {
    it('answers 405 with an Allow header', async () => {
      const response = await request('/health', { method: 'DELETE' });
      expect(response.status).to.equal(405);
      expect(response.headers.get('allow')).to.include('GET');
      expect((await json(response)).type).to.match(/\/problems\/method-not-allowed$/);
    });
  });

  describe('request bodies', () => {
    // A route that reads a JSON body and needs no credentials.
    it('answers 400 to malformed JSON', async () => {
      const response = await request('/v1/auth/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
      expect(response.status).to.equal(400);
      expect((await json(response)).type).to.match(/\/problems\/bad-request$/);
    });

    it('answers 415 to a body that is not JSON', async () => {
      const response = await request('/v1/auth/logout', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(response.status).to.equal(415);
      expect((await json(response)).type).to.match(/\/problems\/unsupported-media-type$/);
    });

    it('answers 413 to a body over 1 MiB without reading it all', async () => {
      const body = JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) });
      const response = await request('/v1/auth/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status).to.equal(413);
      expect((await json(response)).type).to.match(/\/problems\/payload-too-large$/);
    });
  });

  describe('request ids', () => {
    it('keeps a well-formed incoming X-Request-Id', async () => {
      const response = await request('/v1/unknown', { headers: { 'x-request-id': 'client-trace-123456' } });
      expect(response.headers.get('x-request-id')).to.equal('client-trace-123456');
      expect((await json(response)).request_id).to.equal('client-trace-123456');
    });

    it('replaces a malformed one with a fresh id', async () => {
      const response = await request('/v1/unknown', { headers: { 'x-request-id': 'bad id with spaces' } });
      expect(response.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    });
  });

  describe('GET /health', () => {
    it('answers ok with PostgreSQL and Temporal reachable', async () => {
      const response = await request('/health');
      expect(response.status).to.equal(200);
      expect(response.headers.get('x-api-version')).to.equal('1');
      const body = await json(response);
      expect(body).to.deep.include({ status: 'ok', checks: { database: 'ok', temporal: 'ok' } });
      expect(Date.parse(body.timestamp)).to.be.a('number').and.not.NaN;
    });
  });

  describe('GET /problems/{slug}', () => {
    it('explains a problem type', async () => {
      const response = await request('/problems/rate-limited');
      expect(response.status).to.equal(200);
      expect(await response.text()).to.include('429');
    });

    it('answers 404 for an unknown slug', async () => {
      expect((await request('/problems/no-such-problem')).status).to.equal(404);
    });
  });
});
