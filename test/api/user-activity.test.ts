import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login, type TestUser } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { expectTwelveMonthsNotice } from '../support/deprecation.ts';

describe('user activity', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creator: TestUser;
  let creatorToken: string;
  const taskQueue = uniqueTaskQueue('user-activity');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    creator = await createTestUser();
    creatorToken = (await login(api.baseUrl, creator)).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const get = (path: string) => fetch(`${api.baseUrl}${path}`);
  const sign = (petitionId: string, token: string, body: Record<string, unknown> = {}) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });

  describe('GET /v1/users/{slug}/petitions (deprecated)', () => {
    it("lists the user's public, published petitions newest first, a page at a time", async () => {
      const older = await publishedPetition(api.baseUrl, creatorToken);
      const newer = await publishedPetition(api.baseUrl, creatorToken);
      await publishedPetition(api.baseUrl, creatorToken, { visibility: 'private' });
      await publishedPetition(api.baseUrl, creatorToken, { visibility: 'unlisted' });
      await createPetition(api.baseUrl, creatorToken);

      const first = await get(`/v1/users/${creator.slug}/petitions?limit=1`);
      expect(first.status).to.equal(200);
      const page = await json(first);
      expect(page.data.map((petition: { id: string }) => petition.id)).to.deep.equal([newer.id]);
      const rest = await json(await get(`/v1/users/${creator.slug}/petitions?cursor=${page.pagination.next_cursor}`));
      expect(rest.data.map((petition: { id: string }) => petition.id)).to.deep.equal([older.id]);
      expect(rest.pagination.has_more).to.equal(false);
    });

    it('announces its deprecation, a Sunset 12 months after it, and its successor in headers', async () => {
      const response = await get(`/v1/users/${creator.slug}/petitions`);
      expectTwelveMonthsNotice(response.headers);
      expect(response.headers.get('link')).to.equal(`</v1/petitions?creatorId=${creator.id}>; rel="successor-version"`);
    });

    it('answers 404 for an unknown user and 422 for a malformed slug or limit', async () => {
      expect((await get('/v1/users/nobody-by-this-name/petitions')).status).to.equal(404);
      expect((await get('/v1/users/Not_A_Slug/petitions')).status).to.equal(422);
      const tooMany = await get(`/v1/users/${creator.slug}/petitions?limit=101`);
      expect(tooMany.status).to.equal(422);
      expect((await json(tooMany)).errors[0]).to.include({ field: 'limit', code: 'too_big' });
    });
  });

  describe('GET /v1/users/{slug}/signatures', () => {
    it('lists public, named signatures on public petitions only, newest first, a page at a time', async () => {
      const [signer] = await createTokenUsers(1);
      const token = signer!.access_token;
      const slug = (await json(await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(token) }))).data.slug;
      const first = await publishedPetition(api.baseUrl, creatorToken);
      const second = await publishedPetition(api.baseUrl, creatorToken);
      const anonymous = await publishedPetition(api.baseUrl, creatorToken);
      const creatorOnly = await publishedPetition(api.baseUrl, creatorToken, { signaturePrivacy: 'creator_only' });
      const unlisted = await publishedPetition(api.baseUrl, creatorToken, { visibility: 'unlisted' });
      for (const response of [
        await sign(first.id, token, { comment: 'First' }),
        await sign(second.id, token),
        await sign(anonymous.id, token, { is_anonymous: true }),
        await sign(creatorOnly.id, token),
        await sign(unlisted.id, token),
      ])
        expect(response.status).to.equal(201);

      const page = await json(await get(`/v1/users/${slug}/signatures?limit=1`));
      expect(page.data).to.have.length(1);
      expect(page.data[0].petition).to.include({ id: second.id, slug: second.slug, status: 'active' });
      const rest = await json(await get(`/v1/users/${slug}/signatures?limit=5&cursor=${page.pagination.next_cursor}`));
      expect(rest.data.map((signature: { petition: { id: string } }) => signature.petition.id)).to.deep.equal([first.id]);
      expect(rest.data[0]).to.include({ comment: 'First' });
      expect(rest.pagination).to.deep.equal({ next_cursor: null, has_more: false });
    });

    it('answers 404 for an unknown user and 400 for a cursor it did not issue', async () => {
      expect((await get('/v1/users/nobody-by-this-name/signatures')).status).to.equal(404);
      expect((await get(`/v1/users/${creator.slug}/signatures?cursor=bm9wZQ`)).status).to.equal(400);
    });
  });
});
