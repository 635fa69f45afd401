import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('comments', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;
  let petitionId: string;
  const taskQueue = uniqueTaskQueue('comments');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    creatorToken = (await login(api.baseUrl, await createTestUser())).accessToken;
    petitionId = (await publishedPetition(api.baseUrl, creatorToken)).id;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const send = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${api.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const get = async (path: string, token?: string) => json(await fetch(`${api.baseUrl}${path}`, { headers: token ? bearer(token) : {} }));
  const comment = async (petition: string, token: string, body: Record<string, unknown>) => {
    const response = await send('POST', `/v1/petitions/${petition}/comments`, token, body);
    expect(response.status).to.equal(201);
    return (await json(response)).data;
  };
  const freshPetition = async () => (await publishedPetition(api.baseUrl, creatorToken)).id as string;

  describe('POST /v1/petitions/{id}/comments', () => {
    it('posts a comment and replies, which the list shows threaded, oldest reply first', async () => {
      const petition = await freshPetition();
      const [alice, bob] = await createTokenUsers(2);
      const top = await comment(petition, alice!.access_token, { body: 'First!' });
      expect(top).to.include({ petition_id: petition, user_id: alice!.id, parent_id: null, body: 'First!', is_hidden: false, reply_count: 0 });
      expect(top.replies).to.deep.equal([]);
      const first = await comment(petition, bob!.access_token, { body: 'Reply one', parent_id: top.id });
      await comment(petition, alice!.access_token, { body: 'Reply two', parent_id: top.id });
      await comment(petition, alice!.access_token, { body: 'Nested', parent_id: first.id });

      const list = await get(`/v1/petitions/${petition}/comments`);
      expect(list.data).to.have.length(1);
      expect(list.data[0]).to.include({ id: top.id, reply_count: 2 });
      expect(list.data[0].replies.map((reply: { body: string }) => reply.body)).to.deep.equal(['Reply one', 'Reply two']);
      expect(list.data[0].replies[0].replies[0]).to.include({ body: 'Nested', parent_id: first.id });
      expect(list.pagination).to.deep.equal({ next_cursor: null, has_more: false });
    });

    it("notifies the parent's author of a reply, unless they switched comment.reply off", async () => {
      const [author, replier] = await createTokenUsers(2);
      const top = await comment(petitionId, author!.access_token, { body: 'Notify me' });
      const reply = await comment(petitionId, replier!.access_token, { body: 'Here I am', parent_id: top.id });
      const { db } = testEnvironment();
      const notified = () =>
        db.anyFirst(
          sql.type(z.object({ dedupe_key: z.string() }))`SELECT dedupe_key FROM notifications WHERE user_id = ${author!.id} AND type = 'comment.reply'`,
        );
      expect(await notified()).to.deep.equal([`comment-reply:${reply.id}`]);
      expect((await send('PATCH', '/v1/notifications/preferences', author!.access_token, { 'comment.reply': { in_app: false } })).status).to.equal(200);
      await comment(petitionId, replier!.access_token, { body: 'Muted', parent_id: top.id });
      expect(await notified()).to.have.length(1);
    });

    it('answers 422 with the field and a code for a bad body or a parent_id that is not a comment of this petition', async () => {
      const [user] = await createTokenUsers(1);
      const errorsOf = async (body: unknown) => {
        const response = await send('POST', `/v1/petitions/${petitionId}/comments`, user!.access_token, body);
        expect(response.status).to.equal(422);
        return (await json(response)).errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`);
      };
      expect(await errorsOf({ body: '' })).to.deep.equal(['body:too_small']);
      expect(await errorsOf({ body: 'x'.repeat(2001) })).to.deep.equal(['body:too_big']);
      expect(await errorsOf({})).to.deep.equal(['body:required']);
      expect(await errorsOf({ body: 'Hi', parent_id: 'nope' })).to.deep.equal(['parent_id:invalid_format']);
      const elsewhere = await comment(await freshPetition(), user!.access_token, { body: 'Elsewhere' });
      expect(await errorsOf({ body: 'Hi', parent_id: elsewhere.id })).to.deep.equal(['parent_id:unknown_parent']);
    });

    it("answers as reading would: 404 for someone else's draft, 403 for their private petition, 401 without a token", async () => {
      const [user] = await createTokenUsers(1);
      const draft = await createPetition(api.baseUrl, creatorToken);
      expect((await send('POST', `/v1/petitions/${draft.id}/comments`, user!.access_token, { body: 'Hi' })).status).to.equal(404);
      expect((await send('POST', `/v1/petitions/${draft.id}/comments`, creatorToken, { body: 'Note to self' })).status).to.equal(201);
      const secret = await publishedPetition(api.baseUrl, creatorToken, { visibility: 'private' });
      const refused = await send('POST', `/v1/petitions/${secret.id}/comments`, user!.access_token, { body: 'Hi' });
      expect(refused.status).to.equal(403);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${secret.id}/comments`)).status).to.equal(403);
      expect(
        (
          await fetch(`${api.baseUrl}/v1/petitions/${petitionId}/comments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"body":"Hi"}',
          })
        ).status,
      ).to.equal(401);
      expect((await send('POST', '/v1/petitions/00000000-0000-4000-8000-000000000000/comments', user!.access_token, { body: 'Hi' })).status).to.equal(404);
    });
  });

  describe('GET /v1/petitions/{id}/comments', () => {
    it('sorts popular by most replies, then newest, and pages with a cursor', async () => {
      const petition = await freshPetition();
      const [user] = await createTokenUsers(1);
      const token = user!.access_token;
      const quiet = await comment(petition, token, { body: 'quiet' });
      const busy = await comment(petition, token, { body: 'busy' });
      const newest = await comment(petition, token, { body: 'newest' });
      for (const body of ['a', 'b']) await comment(petition, token, { body, parent_id: busy.id });
      await comment(petition, token, { body: 'c', parent_id: quiet.id });

      const ids = (page: { data: { id: string }[] }) => page.data.map((item) => item.id);
      expect(ids(await get(`/v1/petitions/${petition}/comments?sort=recent`))).to.deep.equal([newest.id, busy.id, quiet.id]);
      const first = await get(`/v1/petitions/${petition}/comments?sort=popular&limit=2`);
      expect(ids(first)).to.deep.equal([busy.id, quiet.id]);
      expect(first.pagination.has_more).to.equal(true);
      const second = await get(`/v1/petitions/${petition}/comments?sort=popular&limit=2&cursor=${first.pagination.next_cursor}`);
      expect(ids(second)).to.deep.equal([newest.id]);
      expect(second.pagination).to.deep.equal({ next_cursor: null, has_more: false });
      const mixed = await fetch(`${api.baseUrl}/v1/petitions/${petition}/comments?sort=recent&cursor=${first.pagination.next_cursor}`);
      expect(mixed.status).to.equal(400);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${petition}/comments?sort=best`)).status).to.equal(422);
    });

    it('leaves hidden comments out and keeps a deleted comment with replies in its place as [deleted]', async () => {
      const petition = await freshPetition();
      const [user] = await createTokenUsers(1);
      const token = user!.access_token;
      const kept = await comment(petition, token, { body: 'will be deleted, has a reply' });
      await comment(petition, token, { body: 'the reply', parent_id: kept.id });
      const lonely = await comment(petition, token, { body: 'will be deleted, no replies' });
      const hidden = await comment(petition, token, { body: 'hidden by a moderator' });
      await testEnvironment().db.query(sql.typeAlias('void')`UPDATE comments SET is_hidden = true WHERE id = ${hidden.id}`);
      for (const id of [kept.id, lonely.id]) expect((await send('DELETE', `/v1/comments/${id}`, token)).status).to.equal(204);

      const list = await get(`/v1/petitions/${petition}/comments`);
      expect(list.data).to.have.length(1);
      expect(list.data[0]).to.include({ id: kept.id, body: '[deleted]', is_deleted: true, author: null, user_id: null });
      expect(list.data[0].replies[0].body).to.equal('the reply');
      expect((await fetch(`${api.baseUrl}/v1/comments/${hidden.id}`)).status).to.equal(404);
      expect((await fetch(`${api.baseUrl}/v1/comments/${hidden.id}`, { headers: bearer(token) })).status).to.equal(200);
    });
  });

  describe('thread depth', () => {
    it('answers 422 max_depth for a reply below the fifth level', async () => {
      const petition = await freshPetition();
      let parent = await comment(petition, creatorToken, { body: 'level 0' });
      for (let level = 1; level <= 5; level += 1) parent = await comment(petition, creatorToken, { body: `level ${level}`, parent_id: parent.id });
      const refused = await send('POST', `/v1/petitions/${petition}/comments`, creatorToken, { body: 'level 6', parent_id: parent.id });
      expect(refused.status).to.equal(422);
      expect((await json(refused)).errors).to.deep.include({
        field: 'parent_id',
        code: 'max_depth',
        message: 'replies nest at most 5 levels deep; reply to a comment higher in the thread',
      });
    });

    it('still lists a petition whose stored thread is thousands of levels deep, showing five levels', async () => {
      const petition = await freshPetition();
      const root = await comment(petition, creatorToken, { body: 'the root' });
      // A chain written before the limit existed, straight into the table.
      await testEnvironment().db.query(sql.typeAlias('void')`
        WITH RECURSIVE chain AS (
          SELECT 1 AS n, gen_random_uuid() AS id, ${root.id}::uuid AS parent_id
          UNION ALL SELECT n + 1, gen_random_uuid(), id FROM chain WHERE n < 5000
        )
        INSERT INTO comments (id, petition_id, user_id, parent_id, body, created_at, depth)
        SELECT id, ${petition}, ${root.user_id}, parent_id, 'deep', now() + make_interval(secs => n), n FROM chain
      `);
      const response = await fetch(`${api.baseUrl}/v1/petitions/${petition}/comments`);
      expect(response.status).to.equal(200);
      let node = (await json(response)).data[0];
      let levels = 0;
      while (node.replies.length > 0) [node, levels] = [node.replies[0], levels + 1];
      expect(levels).to.equal(5);
    });
  });

  describe('/v1/comments/{id}', () => {
    it('shows a comment with its replies, and 404 for an unknown one', async () => {
      const [user] = await createTokenUsers(1);
      const top = await comment(petitionId, user!.access_token, { body: 'Read me' });
      await comment(petitionId, user!.access_token, { body: 'Below', parent_id: top.id });
      const shown = await get(`/v1/comments/${top.id}`);
      expect(shown.data).to.include({ id: top.id, body: 'Read me', reply_count: 1 });
      expect(shown.data.replies[0].body).to.equal('Below');
      expect((await fetch(`${api.baseUrl}/v1/comments/00000000-0000-4000-8000-000000000000`)).status).to.equal(404);
    });

    it('lets only the author edit or delete (403 for others, 404 once deleted), and deleting a reply lowers reply_count', async () => {
      const [author, other] = await createTokenUsers(2);
      const top = await comment(petitionId, author!.access_token, { body: 'Original' });
      const reply = await comment(petitionId, author!.access_token, { body: 'Reply', parent_id: top.id });
      const edit = (token: string, body: unknown) => send('PATCH', `/v1/comments/${top.id}`, token, body);

      const forbidden = await edit(other!.access_token, { body: 'Hijacked' });
      expect(forbidden.status).to.equal(403);
      expect((await json(forbidden)).code).to.equal('not_author');
      expect((await send('DELETE', `/v1/comments/${top.id}`, other!.access_token)).status).to.equal(403);
      expect((await json(await edit(author!.access_token, { body: '' }))).errors).to.deep.equal([
        { field: 'body', code: 'too_small', message: 'must NOT have fewer than 1 characters' },
      ]);

      const edited = await edit(author!.access_token, { body: 'Edited' });
      expect(edited.status).to.equal(200);
      expect((await json(edited)).data).to.include({ body: 'Edited', reply_count: 1 });
      expect((await send('DELETE', `/v1/comments/${reply.id}`, author!.access_token)).status).to.equal(204);
      expect((await send('DELETE', `/v1/comments/${reply.id}`, author!.access_token)).status).to.equal(404);
      expect((await send('PATCH', `/v1/comments/${reply.id}`, author!.access_token, { body: 'Back' })).status).to.equal(404);
      expect((await fetch(`${api.baseUrl}/v1/comments/${reply.id}`)).status).to.equal(404);
      expect((await get(`/v1/comments/${top.id}`)).data)
        .to.include({ reply_count: 0 })
        .and.have.property('replies')
        .that.deep.equals([]);
    });
  });
});
