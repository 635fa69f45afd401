import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetition, DESCRIPTION, publishedPetition, transition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { withProductionApi } from '../support/production-api.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('petitions', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let token: string;
  let strangerToken: string;
  const taskQueue = uniqueTaskQueue('petitions');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
    strangerToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const get = (path: string, credential?: string) => fetch(`${api.baseUrl}${path}`, { headers: credential ? bearer(credential) : {} });

  describe('POST /v1/petitions', () => {
    it('creates a draft with a readable slug', async () => {
      const petition = await createPetition(api.baseUrl, token, { tags: ['library', 'sundays'], signatureGoal: 100 });
      expect(petition).to.include({ status: 'draft', signature_count: 0, signature_goal: 100 });
      expect(petition.slug).to.match(/^keep-the-library-open-on-sundays/);
      expect(petition.tags).to.deep.equal(['library', 'sundays']);
    });

    it('answers 422 tag_limit_exceeded for more than 10 tags', async () => {
      const response = await fetch(`${api.baseUrl}/v1/petitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ title: 'Too many tags here', description: DESCRIPTION, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
      });
      expect(response.status).to.equal(422);
      expect((await json(response)).errors).to.deep.include({ field: 'tags', code: 'tag_limit_exceeded', message: 'at most 10 tags are allowed' });
    });

    it('answers 422 naming each field that breaks a rule', async () => {
      const response = await fetch(`${api.baseUrl}/v1/petitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ title: 'shrt', description: 'too short', visibility: 'secret', signatureGoal: 0 }),
      });
      expect(response.status).to.equal(422);
      const errors = (await json(response)).errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`);
      expect(errors).to.include.members(['title:too_small', 'description:too_small', 'visibility:invalid_enum', 'signatureGoal:too_small']);
    });
  });

  describe('POST /v1/petitions/{id}/publish', () => {
    it('publishes a draft, which then is listed', async () => {
      const petition = await createPetition(api.baseUrl, token, { title: 'Publish me right now please' });
      const response = await transition(api.baseUrl, token, petition.id, 'publish');
      expect(response.status).to.equal(200);
      const { data } = await json(response);
      expect(data.status).to.equal('active');
      expect(data.published_at).to.be.a('string');
      const listed = await json(await get('/v1/petitions?limit=100'));
      expect(listed.data.map((item: { id: string }) => item.id)).to.include(petition.id);
    });

    it('answers 409 when the petition is active', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const response = await transition(api.baseUrl, token, petition.id, 'publish');
      expect(response.status).to.equal(409);
      expect((await json(response)).code).to.equal('invalid_transition');
    });

    it('gives one 200 and one 409 to two concurrent publishes', async () => {
      const petition = await createPetition(api.baseUrl, token);
      const statuses = (
        await Promise.all([transition(api.baseUrl, token, petition.id, 'publish'), transition(api.baseUrl, token, petition.id, 'publish')])
      ).map((r) => r.status);
      expect(statuses.sort()).to.deep.equal([200, 409]);
    });

    it('answers 403 to someone else and 404 to an unknown id', async () => {
      const petition = await createPetition(api.baseUrl, token);
      expect((await transition(api.baseUrl, strangerToken, petition.id, 'publish')).status).to.equal(403);
      expect((await transition(api.baseUrl, token, crypto.randomUUID(), 'publish')).status).to.equal(404);
    });
  });

  describe('POST /v1/petitions/{id}/close and /victory', () => {
    it('closes an active petition, and then refuses a victory with 409', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await transition(api.baseUrl, token, petition.id, 'close')).status).to.equal(200);
      expect((await transition(api.baseUrl, token, petition.id, 'victory')).status).to.equal(409);
    });

    it('marks a victory with its message', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const response = await transition(api.baseUrl, token, petition.id, 'victory', { victory_message: 'We won!' });
      expect(response.status).to.equal(200);
      expect((await json(response)).data).to.include({ status: 'victory', victory_message: 'We won!' });
    });

    it('refuses to close a draft with 409', async () => {
      const petition = await createPetition(api.baseUrl, token);
      expect((await transition(api.baseUrl, token, petition.id, 'close')).status).to.equal(409);
    });
  });

  describe('GET /v1/petitions/{slug}', () => {
    it('finds a petition by slug and by id', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await json(await get(`/v1/petitions/${petition.slug}`))).data.id).to.equal(petition.id);
      expect((await json(await get(`/v1/petitions/${petition.id}`))).data.slug).to.equal(petition.slug);
    });

    it('hides a draft from everyone but its creator', async () => {
      const petition = await createPetition(api.baseUrl, token);
      expect((await get(`/v1/petitions/${petition.id}`)).status).to.equal(404);
      expect((await get(`/v1/petitions/${petition.id}`, token)).status).to.equal(200);
    });

    it('lets a private petition be read by its creator or with the access code only', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { visibility: 'private' });
      const own = (await json(await get(`/v1/petitions/${petition.id}`, token))).data;
      expect(own.access_code).to.match(/^[A-Z2-9]{10}$/);
      expect((await get(`/v1/petitions/${petition.id}`, strangerToken)).status).to.equal(403);
      const withCode = await json(await get(`/v1/petitions/${petition.id}?access_code=${own.access_code}`, strangerToken));
      expect(withCode.data.id).to.equal(petition.id);
      expect(withCode.data).to.not.have.property('access_code');
      const check = (accessCode: string) =>
        fetch(`${api.baseUrl}/v1/petitions/${petition.id}/access`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ accessCode }),
        });
      expect((await json(await check(own.access_code))).data).to.deep.equal({ valid: true });
      expect((await check('WRONGCODE1')).status).to.equal(403);
    });

    it('never lists unlisted petitions but serves them by slug', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { visibility: 'unlisted' });
      expect((await get(`/v1/petitions/${petition.slug}`)).status).to.equal(200);
      const listed = await json(await get('/v1/petitions?limit=100'));
      expect(listed.data.map((item: { id: string }) => item.id)).to.not.include(petition.id);
    });
  });

  describe('GET /v1/petitions', () => {
    it('pages through a creator’s petitions with a cursor', async () => {
      const creator = await createTestUser();
      const creatorToken = (await login(api.baseUrl, creator)).accessToken;
      for (let index = 0; index < 3; index += 1) await publishedPetition(api.baseUrl, creatorToken, { title: `Petition number ${index}` });
      const first = await json(await get(`/v1/petitions?creatorId=${creator.id}&limit=2`));
      expect(first.data).to.have.length(2);
      const second = await json(await get(`/v1/petitions?creatorId=${creator.id}&limit=2&cursor=${first.pagination.next_cursor}`));
      expect(second.data).to.have.length(1);
      expect(second.pagination).to.deep.equal({ next_cursor: null, has_more: false });
    });

    it('pages in every sort order, and answers 400 invalid_cursor for a cursor of another order or a tampered one', async () => {
      const creator = await createTestUser();
      const creatorToken = (await login(api.baseUrl, creator)).accessToken;
      for (let index = 0; index < 3; index += 1) await publishedPetition(api.baseUrl, creatorToken, { title: `Sorted petition ${index}` });
      const cursors: Record<string, string> = {};
      for (const sort of ['recent', 'popular', 'trending']) {
        const first = await json(await get(`/v1/petitions?creatorId=${creator.id}&limit=2&sort=${sort}`));
        cursors[sort] = first.pagination.next_cursor;
        const second = await get(`/v1/petitions?creatorId=${creator.id}&limit=2&sort=${sort}&cursor=${cursors[sort]}`);
        expect(second.status, sort).to.equal(200);
        expect((await json(second)).data, sort).to.have.length(1);
      }
      const yearZero = Buffer.from(JSON.stringify({ t: 'petitions:recent', p: ['0000-01-01T00:00:00.000Z', creator.id] })).toString('base64url');
      const huge = Buffer.from(JSON.stringify({ t: 'petitions:popular', p: [2 ** 63, creator.id] })).toString('base64url');
      for (const [sort, cursor] of [
        ['popular', cursors.recent],
        ['recent', cursors.popular],
        ['recent', yearZero],
        ['popular', huge],
        ['recent', 'not*base64'],
        ['recent', '%00'],
      ]) {
        const response = await get(`/v1/petitions?sort=${sort}&cursor=${cursor}`);
        expect(response.status, `${sort} ${cursor}`).to.equal(400);
        expect((await json(response)).type).to.match(/invalid-cursor$/);
      }
    });

    it('filters by tags and answers 422 for an unknown sort', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { tags: ['rare-tag-xyz'] });
      const tagged = await json(await get('/v1/petitions?tags=rare-tag-xyz'));
      expect(tagged.data.map((item: { id: string }) => item.id)).to.deep.equal([petition.id]);
      expect((await get('/v1/petitions?sort=loudest')).status).to.equal(422);
    });
  });

  describe('PATCH and DELETE /v1/petitions/{id}', () => {
    it('updates a petition for its creator only', async () => {
      const petition = await createPetition(api.baseUrl, token);
      const patch = (credential: string) =>
        fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...bearer(credential) },
          body: JSON.stringify({ title: 'A better title for this' }),
        });
      expect((await patch(strangerToken)).status).to.equal(403);
      const response = await patch(token);
      expect(response.status).to.equal(200);
      expect((await json(response)).data.title).to.equal('A better title for this');
    });

    it('lets signature privacy only get stricter once someone has signed', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { signaturePrivacy: 'creator_only' });
      const patch = (signaturePrivacy: string) =>
        fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...bearer(token) },
          body: JSON.stringify({ signaturePrivacy }),
        });
      const signed = await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(strangerToken) },
        body: '{}',
      });
      expect(signed.status).to.equal(201);
      const loosened = await patch('public');
      expect(loosened.status).to.equal(422);
      expect((await json(loosened)).errors[0]).to.include({ field: 'signaturePrivacy', code: 'cannot_loosen' });
      expect((await patch('count_only')).status).to.equal(200);
      expect((await patch('creator_only')).status).to.equal(422);
    });

    it('answers 422 for an imageUrl that is not an http(s) URL', async () => {
      for (const imageUrl of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'file:///etc/passwd']) {
        const response = await fetch(`${api.baseUrl}/v1/petitions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(token) },
          body: JSON.stringify({ title: 'A petition with a picture', description: DESCRIPTION, imageUrl }),
        });
        expect(response.status, imageUrl).to.equal(422);
        expect((await json(response)).errors[0].field, imageUrl).to.equal('imageUrl');
      }
    });

    it('answers 422 for a plain http imageUrl in production, and takes it elsewhere', async () => {
      const body = (imageUrl: string) => JSON.stringify({ title: 'A petition with a picture', description: DESCRIPTION, imageUrl });
      await withProductionApi({ RALLY_TASK_QUEUE: taskQueue }, async (production) => {
        const create = (imageUrl: string) =>
          fetch(`${production.baseUrl}/v1/petitions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...bearer(token) },
            body: body(imageUrl),
          });
        const refused = await create('http://images.example.org/library.png');
        expect(refused.status).to.equal(422);
        expect((await json(refused)).errors[0]).to.include({ field: 'imageUrl', code: 'invalid_format' });
        const created = await create('https://images.example.org/library.png');
        expect(created.status).to.equal(201);
        const { data } = await json(created);
        const edited = await fetch(`${production.baseUrl}/v1/petitions/${data.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', ...bearer(token) },
          body: JSON.stringify({ imageUrl: 'http://images.example.org/other.png' }),
        });
        expect(edited.status).to.equal(422);
      });
      const elsewhere = await fetch(`${api.baseUrl}/v1/petitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: body('http://images.example.org/library.png'),
      });
      expect(elsewhere.status).to.equal(201);
    });

    it('soft-deletes a petition', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`, { method: 'DELETE', headers: bearer(token) })).status).to.equal(204);
      expect((await get(`/v1/petitions/${petition.id}`)).status).to.equal(404);
    });
  });
});
