// client_credentials (issue 27, "App-only tokens"): a confidential client registered without an owner
// gets a token acting for no user, good for public reads only; an owned client's tokens act for the
// owner only while the owner's authorization, listed under /v1/users/me/authorizations, stands.
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { registerApp, tokenRequest, type RegisteredApp } from '../support/oauth.ts';
import { REDIRECT } from '../support/oauth-fixture.ts';
import { DESCRIPTION } from '../support/petitions.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('OAuth client_credentials: app-only and owned apps', function () {
  this.timeout(60_000);
  let api: RunningApi;

  before(async () => {
    api = await startApi();
  });
  after(() => api.stop());

  const grant = (app: RegisteredApp, scope?: string) =>
    tokenRequest(api.baseUrl, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) }, { basic: [app.client_id, app.client_secret!] });
  const get = (token: string, path: string) => fetch(`${api.baseUrl}${path}`, { headers: bearer(token) });

  it('gives an app without an owner a token for public reads only', async () => {
    const app = await registerApp({
      name: 'Petition Map',
      redirectUris: [REDIRECT],
      scopes: 'read:petitions write:petitions read:profile',
      confidential: true,
    });
    const response = await grant(app);
    expect(response.status).to.equal(200);
    const tokens = await json(response);
    expect(tokens.refresh_token).to.equal(undefined);
    expect((await get(tokens.access_token, '/v1/petitions')).status).to.equal(200);
    expect((await get(tokens.access_token, '/v1/search/petitions?q=library')).status).to.be.oneOf([200, 503]);
    const me = await get(tokens.access_token, '/v1/users/me');
    expect(me.status).to.be.oneOf([401, 403]);
    expect((await json(me)).code).to.equal('user_required');
    const created = await fetch(`${api.baseUrl}/v1/petitions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(tokens.access_token) },
      body: JSON.stringify({ title: 'Keep the library open on Sundays', description: DESCRIPTION }),
    });
    expect(created.status).to.be.oneOf([401, 403]);
  });

  it("shows an owned app under the owner's authorizations, and stops its tokens once the owner revokes it", async () => {
    const owner = await createTestUser();
    const ownerToken = (await login(api.baseUrl, owner)).accessToken;
    const app = await registerApp({ name: 'Newsletter Sync', redirectUris: [REDIRECT], scopes: 'read:profile', confidential: true, ownerEmail: owner.email });
    const tokens = await json(await grant(app, 'read:profile'));
    expect((await json(await get(tokens.access_token, '/v1/users/me'))).data.id).to.equal(owner.id);

    const listed = await json(await get(ownerToken, '/v1/users/me/authorizations'));
    expect(listed.data.map((row: { client_id: string }) => row.client_id)).to.include(app.client_id);
    const revoked = await fetch(`${api.baseUrl}/v1/users/me/authorizations/${app.client_id}`, { method: 'DELETE', headers: bearer(ownerToken) });
    expect(revoked.status).to.equal(204);

    for (let attempt = 0; attempt < 40 && (await get(tokens.access_token, '/v1/users/me')).status !== 401; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await get(tokens.access_token, '/v1/users/me')).status).to.equal(401);
    const again = await grant(app, 'read:profile');
    expect([again.status, (await json(again)).error]).to.deep.equal([400, 'unauthorized_client']);
  });
});
