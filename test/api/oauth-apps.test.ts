// Developers register their own OAuth apps (issue 27): /v1/oauth/apps with a real API and worker, the secret shown once and stored hashed, at most 10 apps,
// https or loopback redirect URIs, and a rotated secret valid for RALLY_KEY_GRACE_PERIOD (3 s here), after which a workflow erases it. Only verified addresses
// register, and never under the platform's own name (issue 42).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { tokenRequest } from '../support/oauth.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

const GRACE = { RALLY_KEY_GRACE_PERIOD: '3s' };

describe('/v1/oauth/apps', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let token: string;
  const taskQueue = uniqueTaskQueue('oauth-apps');

  before(async () => {
    [api, worker] = await Promise.all([startApi({ ...GRACE, RALLY_TASK_QUEUE: taskQueue }), startWorker({ ...GRACE, RALLY_TASK_QUEUE: taskQueue })]);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(() => Promise.all([api.stop(), worker.stop()]));

  const call = (method: string, path: string, body?: unknown, as = token) =>
    fetch(`${api.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(as) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const register = (overrides: Record<string, unknown> = {}, as = token) =>
    call(
      'POST',
      '/v1/oauth/apps',
      { name: 'Petition Widget', redirect_uris: ['https://widget.example/callback'], scopes: ['read:petitions'], ...overrides },
      as,
    );
  const clientCredentials = (clientId: string, secret: string) =>
    tokenRequest(api.baseUrl, { grant_type: 'client_credentials' }, { basic: [clientId, secret] });

  it('registers an app, shows its secret once and keeps only a hash', async () => {
    const response = await register();
    expect(response.status).to.equal(201);
    const { data } = await json(response);
    expect(response.headers.get('location')).to.equal(`/v1/oauth/apps/${data.client_id}`);
    expect(data).to.include({ name: 'Petition Widget', confidential: true });
    expect(data.client_secret).to.be.a('string').with.length.greaterThan(40);
    const stored = await testEnvironment().db.one(sql.type(z.object({ secret_hash: z.instanceof(Buffer) }))`
      SELECT secret_hash FROM oauth_clients WHERE client_id = ${data.client_id}`);
    expect(stored.secret_hash.equals(createHash('sha256').update(data.client_secret).digest())).to.equal(true);
    const one = await json(await call('GET', `/v1/oauth/apps/${data.client_id}`));
    expect(one.data).to.not.have.property('client_secret');
    const listed = await json(await call('GET', '/v1/oauth/apps'));
    expect(listed.data.map((app: { client_id: string }) => app.client_id)).to.include(data.client_id);
    expect(JSON.stringify(listed)).to.not.include(data.client_secret);
  });

  it('gives its client_credentials an app-only token, never one acting for the developer', async () => {
    const { data } = await json(await register());
    const tokens = await json(await clientCredentials(data.client_id, data.client_secret));
    expect((await call('GET', '/v1/petitions', undefined, tokens.access_token)).status).to.equal(200);
    expect((await call('GET', '/v1/users/me', undefined, tokens.access_token)).status).to.be.oneOf([401, 403]);
  });

  it('takes https redirect URIs, and http only on loopback (RFC 8252)', async () => {
    expect((await register({ redirect_uris: ['http://127.0.0.1:8123/cb', 'http://localhost/cb'] })).status).to.equal(201);
    for (const uri of ['http://widget.example/callback', 'javascript:alert(1)', 'https://widget.example/cb#fragment', 'not a url']) {
      const response = await register({ redirect_uris: [uri] });
      expect(response.status, uri).to.equal(422);
    }
  });

  it("keeps each developer's apps their own: another user gets 404", async () => {
    const { data } = await json(await register());
    const stranger = (await login(api.baseUrl, await createTestUser())).accessToken;
    expect((await call('GET', `/v1/oauth/apps/${data.client_id}`, undefined, stranger)).status).to.equal(404);
    expect((await call('PATCH', `/v1/oauth/apps/${data.client_id}`, { name: 'Mine now' }, stranger)).status).to.equal(404);
    expect((await call('DELETE', `/v1/oauth/apps/${data.client_id}`, undefined, stranger)).status).to.equal(404);
    expect((await call('POST', `/v1/oauth/apps/${data.client_id}/rotate-secret`, undefined, stranger)).status).to.equal(404);
  });

  it('allows at most 10 apps per account', async () => {
    const developer = (await login(api.baseUrl, await createTestUser())).accessToken;
    for (let made = 0; made < 10; made++) expect((await register({}, developer)).status).to.equal(201);
    const eleventh = await register({}, developer);
    expect(eleventh.status).to.equal(422);
    expect((await json(eleventh)).code).to.equal('limit_reached');
  });

  it('renames and re-scopes an app, and deleting it stops its tokens', async () => {
    const { data } = await json(await register());
    const patched = await json(await call('PATCH', `/v1/oauth/apps/${data.client_id}`, { name: 'Renamed', scopes: ['read:petitions', 'read:profile'] }));
    expect(patched.data).to.include({ name: 'Renamed' });
    expect(patched.data.scopes).to.have.members(['read:petitions', 'read:profile']);
    expect((await call('PATCH', `/v1/oauth/apps/${data.client_id}`, {})).status).to.equal(422);
    const tokens = await json(await clientCredentials(data.client_id, data.client_secret));
    expect((await call('DELETE', `/v1/oauth/apps/${data.client_id}`)).status).to.equal(204);
    const refused = await clientCredentials(data.client_id, data.client_secret);
    expect([refused.status, (await json(refused)).error]).to.deep.equal([401, 'invalid_client']);
    for (let attempt = 0; attempt < 40 && (await call('GET', '/v1/petitions', undefined, tokens.access_token)).status !== 401; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await call('GET', '/v1/petitions', undefined, tokens.access_token)).status).to.equal(401);
  });

  it('rotates a secret: the old one works through the grace window, then a workflow erases it', async () => {
    const { data } = await json(await register());
    const rotated = await call('POST', `/v1/oauth/apps/${data.client_id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    const { data: after } = await json(rotated);
    expect(after.client_secret).to.be.a('string').and.not.equal(data.client_secret);
    expect(after.previous_secret_expires_at).to.be.a('string');
    expect((await clientCredentials(data.client_id, data.client_secret)).status).to.equal(200);
    expect((await clientCredentials(data.client_id, after.client_secret)).status).to.equal(200);

    const { client } = testEnvironment().temporal;
    let workflowId: string | undefined;
    for await (const execution of client.workflow.list({ query: `WorkflowId STARTS_WITH 'oauth-secret-rotation-${data.client_id}-'` }))
      workflowId = execution.workflowId;
    expect(workflowId).to.be.a('string');
    const handle = client.workflow.getHandle(workflowId!);
    expect(await handle.result()).to.equal(true);
    await captureHistory('oauth-secret-rotation-completed', handle);

    const old = await clientCredentials(data.client_id, data.client_secret);
    expect([old.status, (await json(old)).error]).to.deep.equal([401, 'invalid_client']);
    expect((await clientCredentials(data.client_id, after.client_secret)).status).to.equal(200);
    const stored = await testEnvironment().db.one(sql.type(z.object({ previous_secret_hash: z.instanceof(Buffer).nullable() }))`
      SELECT previous_secret_hash FROM oauth_clients WHERE client_id = ${data.client_id}`);
    expect(stored.previous_secret_hash).to.equal(null);
  });

  it('reserves the platform name: "Rally" in any spelling is refused at registration and rename (422 reserved_name)', async () => {
    const spellings = [
      'Rally',
      ' rally ',
      'R A L L Y',
      'RALLY.',
      'r-a-l-l-y',
      'RaIIy',
      'R\u0430lly',
      'R\u00e4lly',
      '\uff32\uff41\uff4c\uff4c\uff59',
      'Ral\u200bly',
    ];
    for (const name of spellings) {
      const response = await register({ name });
      expect(response.status, JSON.stringify(name)).to.equal(422);
      expect(
        (await json(response)).errors.map((error: { code: string }) => error.code),
        JSON.stringify(name),
      ).to.include('reserved_name');
    }
    // A name that only mentions it is the developer's to choose: the consent screen says who registered the app.
    const { data } = await json(await register({ name: 'Rally Route Planner' }));
    const renamed = await call('PATCH', `/v1/oauth/apps/${data.client_id}`, { name: 'RALLY' });
    expect([renamed.status, (await json(renamed)).errors?.[0]?.code]).to.deep.equal([422, 'reserved_name']);
  });

  it('lets only an account with a verified email address register an app (403 email_unverified)', async () => {
    const person = await createTestUser();
    const developer = (await login(api.baseUrl, person)).accessToken;
    const { db } = testEnvironment();
    await db.query(sql.typeAlias('void')`UPDATE users SET email_verified = false WHERE id = ${person.id}`);
    const refused = await register({}, developer);
    expect([refused.status, (await json(refused)).code]).to.deep.equal([403, 'email_unverified']);
    const apps = await db.oneFirst(
      sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM oauth_clients WHERE registered_by = ${person.id}`,
    );
    expect(apps).to.equal(0);
  });

  it('refuses to rotate a public app (409)', async () => {
    const { data } = await json(await register({ confidential: false }));
    expect(data).to.not.have.property('client_secret');
    const response = await call('POST', `/v1/oauth/apps/${data.client_id}/rotate-secret`);
    expect([response.status, (await json(response)).code]).to.deep.equal([409, 'public_client']);
  });
});
