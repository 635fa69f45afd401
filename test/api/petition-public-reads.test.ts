import { expect } from 'chai';
import { sql } from '../../db/sql.ts';
import { eventually } from '../support/events.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetition, publishedPetition, transition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

// Anonymous reads of public petitions are served from each API process's memory (issue 16); these
// tests hold that cache to the spec: a change shows on a later read, validators answer 304, and
// nothing the petition policy hides from a visitor is ever served to one.
describe('public petition reads', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let token: string;
  let signerToken: string;
  const taskQueue = uniqueTaskQueue('public-reads');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
    signerToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  // fetch() adds Cache-Control: no-cache to a conditional request (a forced reload) unless told otherwise.
  const anonymous = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${api.baseUrl}${path}`, { headers: headers['If-None-Match'] ? { 'Cache-Control': 'max-age=0', ...headers } : headers });
  const patch = (id: string, body: unknown) =>
    fetch(`${api.baseUrl}/v1/petitions/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });
  /** The anonymous answer once `holds` accepts it. */
  const eventuallyAnonymous = (path: string, holds: (status: number, body: { data?: Record<string, unknown> }) => boolean, what: string) =>
    eventually(
      async () => {
        const response = await anonymous(path);
        const body = await json(response);
        return holds(response.status, body) ? { status: response.status, body } : undefined;
      },
      30_000,
      what,
    );

  describe('GET /v1/petitions/{slug}', () => {
    it('answers a visitor with a weak ETag, a short public max-age and Vary: Authorization', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const response = await anonymous(`/v1/petitions/${petition.slug}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('etag')).to.match(/^W\/".+"$/);
      expect(response.headers.get('cache-control')).to.equal('public, max-age=1');
      expect(response.headers.get('vary')).to.match(/Authorization/i);
    });

    it('answers 304 without a body when If-None-Match names the current ETag, and 200 once the petition changed', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const etag = (await anonymous(`/v1/petitions/${petition.slug}`)).headers.get('etag')!;
      const revalidated = await anonymous(`/v1/petitions/${petition.slug}`, { 'If-None-Match': etag });
      expect(revalidated.status).to.equal(304);
      expect(await revalidated.text()).to.equal('');
      expect((await patch(petition.id, { title: 'A title changed after publishing' })).status).to.equal(200);
      await eventually(
        async () => {
          const response = await anonymous(`/v1/petitions/${petition.slug}`, { 'If-None-Match': etag });
          return response.status === 200 && response.headers.get('etag') !== etag ? true : undefined;
        },
        30_000,
        'a new ETag after the change',
      );
    });

    it('shows a change by the creator on a later read', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await json(await anonymous(`/v1/petitions/${petition.slug}`))).data.title).to.equal(petition.title);
      expect((await patch(petition.id, { title: 'The council must keep it open' })).status).to.equal(200);
      await eventuallyAnonymous(`/v1/petitions/${petition.slug}`, (_, body) => body.data?.title === 'The council must keep it open', 'the new title');
    });

    it('shows a closed petition as closed', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await json(await anonymous(`/v1/petitions/${petition.id}`))).data.status).to.equal('active');
      expect((await transition(api.baseUrl, token, petition.id, 'close')).status).to.equal(200);
      await eventuallyAnonymous(`/v1/petitions/${petition.id}`, (_, body) => body.data?.status === 'closed', 'the closed status');
    });

    it('shows the signature count as it grows', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await json(await anonymous(`/v1/petitions/${petition.slug}`))).data.signature_count).to.equal(0);
      const signed = await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(signerToken) },
        body: '{}',
      });
      expect(signed.status).to.equal(201);
      await eventuallyAnonymous(`/v1/petitions/${petition.slug}`, (_, body) => body.data?.signature_count === 1, 'a count of 1');
    });

    it('catches up with a count changed without any signature event', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await json(await anonymous(`/v1/petitions/${petition.slug}`))).data.signature_count).to.equal(0);
      await testEnvironment().db.query(sql.typeAlias('void')`INSERT INTO signature_counters (petition_id, shard, count) VALUES (${petition.id}, 0, 7)`);
      await eventuallyAnonymous(`/v1/petitions/${petition.slug}`, (_, body) => body.data?.signature_count === 7, 'a count of 7');
    });

    it('stops showing a petition to visitors once it is made private, and shows it with its code as a private answer', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await anonymous(`/v1/petitions/${petition.slug}`)).status).to.equal(200);
      const changed = await json(await patch(petition.id, { visibility: 'private' }));
      const refused = await eventuallyAnonymous(`/v1/petitions/${petition.slug}`, (status) => status === 403, 'a 403');
      expect(refused.body).to.include({ code: 'access_code_required' });
      const withCode = await anonymous(`/v1/petitions/${petition.slug}?access_code=${changed.data.access_code}`);
      expect(withCode.status).to.equal(200);
      expect(withCode.headers.get('cache-control')).to.equal('private, no-cache');
      expect((await json(withCode)).data).to.not.have.property('access_code');
      expect((await anonymous(`/v1/petitions/${petition.slug}`)).status).to.equal(403);
    });

    it('never shows a draft to a visitor, while its creator reads it with a private answer', async () => {
      const draft = await createPetition(api.baseUrl, token);
      const own = await fetch(`${api.baseUrl}/v1/petitions/${draft.slug}`, { headers: bearer(token) });
      expect(own.status).to.equal(200);
      expect(own.headers.get('cache-control')).to.equal('private, no-cache');
      for (let attempt = 0; attempt < 3; attempt += 1) expect((await anonymous(`/v1/petitions/${draft.slug}`)).status).to.equal(404);
    });

    it('answers 404 once a read petition is deleted', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await anonymous(`/v1/petitions/${petition.slug}`)).status).to.equal(200);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, { method: 'DELETE', headers: bearer(token) })).status).to.equal(204);
      await eventuallyAnonymous(`/v1/petitions/${petition.slug}`, (status) => status === 404, 'a 404');
    });
  });

  describe('GET /v1/petitions', () => {
    it('answers a visitor with an ETag and 304 on If-None-Match', async () => {
      const first = await anonymous('/v1/petitions?limit=20');
      expect(first.status).to.equal(200);
      expect(first.headers.get('cache-control')).to.equal('public, max-age=1');
      const etag = first.headers.get('etag')!;
      const revalidated = await eventually(
        async () => {
          const response = await anonymous('/v1/petitions?limit=20', { 'If-None-Match': (await anonymous('/v1/petitions?limit=20')).headers.get('etag')! });
          return response.status === 304 ? response : undefined;
        },
        30_000,
        'a 304',
      );
      expect(etag).to.match(/^W\/".+"$/);
      expect(await revalidated.text()).to.equal('');
    });

    it('lists a newly published petition, and drops it once it is made private', async () => {
      await anonymous('/v1/petitions?limit=100');
      const petition = await publishedPetition(api.baseUrl, token, { title: 'Listed then hidden from the list' });
      const listed = (status: number, body: { data?: unknown }) => status === 200 && (body.data as { id: string }[]).some((row) => row.id === petition.id);
      await eventuallyAnonymous('/v1/petitions?limit=100', listed, 'the petition in the list');
      expect((await patch(petition.id, { visibility: 'private' })).status).to.equal(200);
      await eventuallyAnonymous('/v1/petitions?limit=100', (status, body) => !listed(status, body), 'the petition gone from the list');
    });

    it('shows the creator their own access code in the public list, and a visitor never', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { title: 'Private first, public afterwards', visibility: 'private' });
      expect((await patch(petition.id, { visibility: 'public' })).status).to.equal(200);
      const find = (body: { data: { id: string; access_code?: string }[] }) => body.data.find((row) => row.id === petition.id);
      const seen = await eventuallyAnonymous(
        '/v1/petitions?limit=100',
        (status, body) => status === 200 && find(body as never) !== undefined,
        'the petition listed',
      );
      expect(find(seen.body as never)).to.not.have.property('access_code');
      const own = await fetch(`${api.baseUrl}/v1/petitions?limit=100`, { headers: bearer(token) });
      expect(own.headers.get('cache-control')).to.equal('private, no-cache');
      expect(find(await json(own))?.access_code).to.be.a('string');
    });
  });
});
