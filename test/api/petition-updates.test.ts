import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('petition updates', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;
  const taskQueue = uniqueTaskQueue('petition-updates');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const postUpdate = (petitionId: string, token: string, body: unknown) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/updates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });

  describe('POST /v1/petitions/{id}/updates', () => {
    it('posts an update for the creator and records update.created with it', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const response = await postUpdate(petition.id, creatorToken, { title: 'We met the mayor', body: 'She listened; the vote is next week.' });
      expect(response.status).to.equal(201);
      const { data } = await json(response);
      expect(data).to.include({ petition_id: petition.id, title: 'We met the mayor', body: 'She listened; the vote is next week.' });
      const events = await testEnvironment().db.any(sql.type(z.object({ actor_type: z.string(), data: z.record(z.string(), z.unknown()) }))`
        SELECT actor_type, data FROM events WHERE petition_id = ${petition.id} AND type = 'update.created'
      `);
      expect(events).to.have.length(1);
      expect(events[0]!.actor_type).to.equal('user');
      expect(events[0]!.data).to.include({ id: data.id, title: 'We met the mayor' });
    });

    it('answers 403 to someone else, 404 to an unknown petition and 401 without a token', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const [stranger] = await createTokenUsers(1);
      const refused = await postUpdate(petition.id, stranger!.access_token, { title: 'Hi', body: 'Not mine' });
      expect(refused.status).to.equal(403);
      expect((await json(refused)).code).to.equal('not_owner');
      expect((await postUpdate('00000000-0000-4000-8000-000000000000', creatorToken, { title: 'Hi', body: 'Nowhere' })).status).to.equal(404);
      const anonymous = await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/updates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"title":"a","body":"b"}',
      });
      expect(anonymous.status).to.equal(401);
    });

    it('answers 422 naming each field that breaks its length rule', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      const errorsOf = async (body: unknown) => {
        const response = await postUpdate(petition.id, creatorToken, body);
        expect(response.status).to.equal(422);
        return (await json(response)).errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`);
      };
      expect(await errorsOf({ title: '', body: 'x'.repeat(10_001) })).to.have.members(['title:too_small', 'body:too_big']);
      expect(await errorsOf({ title: 'x'.repeat(201), body: '' })).to.have.members(['title:too_big', 'body:too_small']);
      expect(await errorsOf({ title: 'Fine', body: 'Fine', extra: true })).to.deep.equal(['extra:unknown_field']);
    });
  });

  describe('GET /v1/petitions/{id}/updates', () => {
    it('lists updates newest first, a page at a time, to anyone who may read the petition', async () => {
      const petition = await publishedPetition(api.baseUrl, creatorToken);
      for (const title of ['one', 'two', 'three'])
        expect((await postUpdate(petition.id, creatorToken, { title, body: `Update ${title}` })).status).to.equal(201);
      const first = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/updates?limit=2`));
      expect(first.data.map((update: { title: string }) => update.title)).to.deep.equal(['three', 'two']);
      const second = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/updates?limit=2&cursor=${first.pagination.next_cursor}`));
      expect(second.data.map((update: { title: string }) => update.title)).to.deep.equal(['one']);
      expect(second.pagination).to.deep.equal({ next_cursor: null, has_more: false });
    });

    it("hides a draft's updates from others (404) but shows them to the creator", async () => {
      const draft = await createPetition(api.baseUrl, creatorToken);
      expect((await postUpdate(draft.id, creatorToken, { title: 'Soon', body: 'Launching next week.' })).status).to.equal(201);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${draft.id}/updates`)).status).to.equal(404);
      const own = await json(await fetch(`${api.baseUrl}/v1/petitions/${draft.id}/updates`, { headers: bearer(creatorToken) }));
      expect(own.data).to.have.length(1);
    });
  });
});
