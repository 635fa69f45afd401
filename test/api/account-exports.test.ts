// Give me my data (issue 46): POST /v1/users/me/export runs the accountExport workflow, which stores
// one ZIP of the person's data and emails a link that works once, until RALLY_EXPORT_LINK_TTL.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { accountExportWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, login, type TestUser } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';
import { readZip } from '../support/zip.ts';

type Person = TestUser & { token: string };
const LINK_TTL_S = 15;

describe('account exports (give me my data)', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mail: MailCatcher;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (method: string, path: string, token?: string, body?: unknown) =>
    fetch(`${api.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const exportLink = async (who: Person) => {
    const message = await mail.waitFor(who.email, /data export is ready/, 60_000);
    const link = /https?:\/\/\S+\/v1\/account-exports\/[0-9a-f-]{36}\/download\?token=[A-Za-z0-9_-]{43}/.exec(message.text)?.[0];
    if (!link) throw new Error(`no export link in:\n${message.raw}`);
    return link.replace(PUBLIC_URL, '');
  };
  const insertExports = (userId: string, status: string, count: number) =>
    testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO account_exports (id, user_id, status)
      SELECT gen_random_uuid(), ${userId}, ${status} FROM generate_series(1, ${count})`);

  before(async () => {
    mail = await startMailCatcher();
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('exports'), SMTP_URL: mail.url, RALLY_EXPORT_LINK_TTL: `${LINK_TTL_S}s` };
    api = await startApi(env);
    worker = await startWorker(env);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await mail.stop();
  });

  it("emails a link to one ZIP of the person's data that works once; the list shows it", async () => {
    const me = await person();
    const other = await person();
    const mine = await publishedPetition(api.baseUrl, me.token, { title: `My own petition ${randomUUID().slice(0, 6)}` });
    const theirs = await publishedPetition(api.baseUrl, other.token);
    expect((await call('POST', `/v1/petitions/${theirs.id}/signatures`, me.token, { comment: 'Sundays matter' })).status).to.equal(201);
    const comment = await json(await call('POST', `/v1/petitions/${theirs.id}/comments`, me.token, { body: 'Count me in, neighbours.' }));
    const key = await createApiKey(api.baseUrl, me.token, 'read', 'my export key');
    const report = await call('POST', '/v1/reports', me.token, { target_type: 'petition', target_id: theirs.id, reason: 'other' });
    expect(report.status).to.equal(201);

    const started = await call('POST', '/v1/users/me/export', me.token);
    expect(started.status).to.equal(202);
    const exportId = (await json(started)).data.id as string;
    const link = await exportLink(me);

    const download = await call('GET', link);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.equal('application/zip');
    const archive = Buffer.from(await download.arrayBuffer());
    const files = readZip(archive);
    const file = (name: string) => JSON.parse(files.get(name)!.toString('utf8'));
    expect([...files.keys()].sort()).to.deep.equal([
      'api-keys.json',
      'comments.json',
      'notifications.json',
      'oauth-authorizations.json',
      'organizations.json',
      'petitions.json',
      'profile.json',
      'reports.json',
      'signatures.json',
    ]);
    expect(file('profile.json')).to.include({ id: me.id, email: me.email });
    expect(file('signatures.json')).to.have.length(1);
    expect(file('signatures.json')[0]).to.deep.include({
      comment: 'Sundays matter',
      petition: { id: theirs.id, slug: theirs.slug, title: theirs.title, status: 'active' },
    });
    expect(file('comments.json').map((row: { id: string; body: string }) => [row.id, row.body])).to.deep.equal([[comment.data.id, 'Count me in, neighbours.']]);
    expect(file('petitions.json').map((row: { id: string }) => row.id)).to.deep.equal([mine.id]);
    expect(file('api-keys.json').map((row: { name: string; display_prefix: string }) => row.name)).to.deep.equal(['my export key']);
    expect(file('reports.json').map((row: { target_id: string }) => row.target_id)).to.deep.equal([theirs.id]);
    // Never a secret: the raw key appears nowhere in the archive's files.
    for (const content of files.values()) expect(content.toString('utf8')).to.not.include(key.key);

    expect((await call('GET', link)).status, 'the link works once').to.equal(410);
    const listed = await json(await call('GET', '/v1/users/me/exports', me.token));
    expect(listed.data).to.have.length(1);
    expect(listed.data[0]).to.include({ id: exportId, status: 'ready', size_bytes: archive.length });
    expect(listed.data[0].downloaded_at).to.be.a('string');

    const stored = await testEnvironment().db.oneFirst(sql.type(z.object({ token_hash: z.instanceof(Buffer) }))`
      SELECT token_hash FROM account_exports WHERE id = ${exportId}`);
    expect(stored.toString('latin1')).to.not.include(new URL(link, PUBLIC_URL).searchParams.get('token'));
    const handle = testEnvironment().temporal.client.workflow.getHandle(accountExportWorkflowId(exportId));
    expect(await handle.result()).to.deep.equal({ exportId, outcome: 'ready' });
    await captureHistory('account-export-ready', handle);
  });

  it('answers 404 for a wrong token and 410 once the link has expired', async () => {
    const me = await person();
    expect((await call('POST', '/v1/users/me/export', me.token)).status).to.equal(202);
    const link = await exportLink(me);
    const wrong = link.replace(/token=.*/, `token=${'A'.repeat(43)}`);
    expect((await call('GET', wrong)).status).to.equal(404);
    const [exported] = (await json(await call('GET', '/v1/users/me/exports', me.token))).data;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(exported.link_expires_at) - Date.now()) + 500));
    const expired = await call('GET', link);
    expect(expired.status).to.equal(410);
    expect((await json(expired)).code).to.equal('export_link_used');
  });

  it('refuses a second export while one runs (409) and a fourth in 24 hours (429 with Retry-After)', async () => {
    const busy = await person();
    await insertExports(busy.id, 'running', 1);
    const refused = await call('POST', '/v1/users/me/export', busy.token);
    expect(refused.status).to.equal(409);
    expect((await json(refused)).code).to.equal('export_running');

    const eager = await person();
    await insertExports(eager.id, 'ready', 3);
    const limited = await call('POST', '/v1/users/me/export', eager.token);
    expect(limited.status).to.equal(429);
    expect((await json(limited)).code).to.equal('export_limit_reached');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(86_000, 86_400);
  });

  it('lets a suspended person export their data', async () => {
    const admin = await createTestUser({ admin: true });
    const adminToken = (await login(api.baseUrl, admin)).accessToken;
    const me = await person();
    expect((await call('POST', `/v1/admin/users/${me.id}/suspend`, adminToken, { reason: 'testing exports' })).status).to.equal(200);
    expect((await call('GET', '/v1/users/me', me.token)).status, 'suspended elsewhere').to.equal(403);
    expect((await call('POST', '/v1/users/me/export', me.token)).status).to.equal(202);
    await exportLink(me);
  });
});
