// Who may sign (issue 42): only an account whose email address is verified, by every entry point. An account whose address is not verified (a provider that
// lets people log in before verifying says email_verified: false) does not own the address: the API answers 403 email_unverified, the browser form its page,
// and nothing is counted or exported.
import { expect } from 'chai';
import { z } from 'zod';
import { startBrowserSession } from '../../core/browser-sessions/sessions.ts';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, createTokenUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('who may sign: an account whose email is verified', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let creatorToken: string;

  before(async () => {
    const taskQueue = uniqueTaskQueue('who-may-sign');
    [api, worker] = await Promise.all([startApi({ RALLY_TASK_QUEUE: taskQueue }), startWorker({ RALLY_TASK_QUEUE: taskQueue })]);
    creatorToken = (await login(api.baseUrl, await createTestUser({ name: 'Creator Person' }))).accessToken;
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const sign = (petitionId: string, token: string, body: Record<string, unknown> = {}) =>
    fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: JSON.stringify(body),
    });

  it('an account whose email is not verified cannot sign: 403 email_unverified, nothing counted or exported', async () => {
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    const [claimer] = await createTokenUsers(1);
    // As a provider that lets people log in before verifying tells Rally (email_verified: false).
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE users SET email_verified = false WHERE id = ${claimer!.id}`);
    const refused = await sign(petition.id, claimer!.access_token, { comment: 'Signed in someone else’s name' });
    expect(refused.status).to.equal(403);
    expect(await json(refused)).to.include({ code: 'email_unverified', status: 403 });
    const count = await testEnvironment().db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM signatures WHERE petition_id = ${petition.id}`,
    );
    expect(count).to.equal(0);
    const exported = await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/export?format=json`, { headers: bearer(creatorToken) });
    expect(await json(exported)).to.deep.equal([]);
    // Verified, the same account signs.
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE users SET email_verified = true WHERE id = ${claimer!.id}`);
    expect((await sign(petition.id, claimer!.access_token)).status).to.equal(201);
  });

  it('refuses an unverified account on the browser form too: the same rule, answered with the page (403)', async () => {
    const petition = await publishedPetition(api.baseUrl, creatorToken);
    const [claimer] = await createTokenUsers(1);
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE users SET email_verified = false WHERE id = ${claimer!.id}`);
    const cookie = `rally_session=${await startBrowserSession(testEnvironment().db, claimer!.id, { idleTtlMs: 3_600_000, maxTtlMs: 3_600_000 })}`;
    const account = await (await fetch(`${api.baseUrl}/account`, { headers: { cookie } })).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(account)?.[1];
    const response = await fetch(`${api.baseUrl}/p/${petition.slug}/sign`, {
      method: 'POST',
      headers: { cookie, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf ?? '' }).toString(),
      redirect: 'manual',
    });
    expect(response.status).to.equal(403);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    expect(await response.text()).to.include('not confirmed yet');
    expect((await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}`))).data.signature_count).to.equal(0);
  });
});
