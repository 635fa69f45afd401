import { expect } from 'chai';
import { notifyUsers } from '../../core/notifications/create.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('Notifications', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let user: TestUser;
  let token: string;

  before(async () => {
    api = await startApi();
    user = await createTestUser();
    token = (await login(api.baseUrl, user)).accessToken;
    // One at a time, so that each has its own created_at and the order is defined.
    for (const word of ['one', 'two', 'three']) {
      await notifyUsers(testEnvironment().db, [
        { userId: user.id, type: 'comment.reply', title: `Reply ${word}`, body: 'Someone answered you.', data: { word }, dedupeKey: `test:${word}` },
      ]);
    }
  });
  after(() => api.stop());

  const call = async (path: string, init: RequestInit & { credential?: string } = {}) => {
    const response = await fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(init.credential ?? token) } });
    return { status: response.status, body: response.status === 204 ? undefined : await json(response) };
  };

  it('lists newest first with counts, and pages', async () => {
    const { body } = await call('/v1/notifications?limit=2');
    expect(body.data.map((n: { title: string }) => n.title)).to.deep.equal(['Reply three', 'Reply two']);
    expect(body.data[0]).to.include({ type: 'comment.reply', read: false, body: 'Someone answered you.' });
    expect(body.counts).to.deep.equal({ total: 3, unread: 3 });
    const next = await call(`/v1/notifications?limit=2&cursor=${body.pagination.next_cursor}`);
    expect(next.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['Reply one']);
  });

  it('does not notify twice for one dedupe key', async () => {
    const inserted = await notifyUsers(testEnvironment().db, [
      { userId: user.id, type: 'comment.reply', title: 'again', body: '', data: {}, dedupeKey: 'test:one' },
    ]);
    expect(inserted).to.equal(0);
  });

  it('marks given ids read, then all, with unread counts and unread_only following', async () => {
    const first = (await call('/v1/notifications')).body.data[0];
    const marked = await call('/v1/notifications/mark-read', { method: 'POST', body: JSON.stringify({ notification_ids: [first.id] }) });
    expect(marked.status).to.equal(200);
    expect(marked.body.data).to.deep.equal({ marked: 1, unread_count: 2 });
    expect((await call(`/v1/notifications/${first.id}`)).body.data.read).to.equal(true);
    expect((await call('/v1/notifications/unread-count')).body.data).to.deep.equal({ unread_count: 2 });
    const unread = await call('/v1/notifications?unread_only=true');
    expect(unread.body.data.map((n: { id: string }) => n.id)).to.not.include(first.id);
    expect(unread.body.counts).to.deep.equal({ total: 3, unread: 2 });
    expect((await call('/v1/notifications/mark-read', { method: 'POST', body: JSON.stringify({ mark_all: true }) })).body.data).to.deep.equal({
      marked: 2,
      unread_count: 0,
    });
  });

  it('answers 422 unless exactly one of notification_ids and mark_all is given', async () => {
    for (const body of [{}, { mark_all: true, notification_ids: ['00000000-0000-4000-8000-000000000000'] }, { notification_ids: ['nope'] }]) {
      expect((await call('/v1/notifications/mark-read', { method: 'POST', body: JSON.stringify(body) })).status, JSON.stringify(body)).to.equal(422);
    }
  });

  it("answers 404 for someone else's notification and does not mark it", async () => {
    const mine = (await call('/v1/notifications')).body.data[0].id;
    const other = (await login(api.baseUrl, await createTestUser())).accessToken;
    expect((await call(`/v1/notifications/${mine}`, { credential: other })).status).to.equal(404);
    const marked = await call('/v1/notifications/mark-read', { method: 'POST', credential: other, body: JSON.stringify({ notification_ids: [mine] }) });
    expect(marked.body.data.marked).to.equal(0);
  });

  it('shows every type on by default and merges a PATCH per type; switched-off types are not created', async () => {
    const before = (await call('/v1/notifications/preferences')).body.data;
    expect(before['comment.reply']).to.deep.equal({ in_app: true, email: true });
    const patched = await call('/v1/notifications/preferences', { method: 'PATCH', body: JSON.stringify({ 'comment.reply': { email: false } }) });
    expect(patched.body.data['comment.reply']).to.deep.equal({ in_app: true, email: false });
    await call('/v1/notifications/preferences', { method: 'PATCH', body: JSON.stringify({ 'comment.reply': { in_app: false } }) });
    expect((await call('/v1/notifications/preferences')).body.data['comment.reply']).to.deep.equal({ in_app: false, email: false });
    const inserted = await notifyUsers(testEnvironment().db, [
      { userId: user.id, type: 'comment.reply', title: 'muted', body: '', data: {}, dedupeKey: 'test:muted' },
    ]);
    expect(inserted).to.equal(0);
    expect((await call('/v1/notifications/preferences', { method: 'PATCH', body: JSON.stringify({ 'no.such.type': { in_app: false } }) })).status).to.equal(
      422,
    );
  });
});
