// Revoking app tokens (issue 27, "No revocation"): RFC 7009 POST /oauth/revoke by the app, and POST
// /v1/auth/revoke by the user, each effective on a second API process over the same database.
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer } from '../support/identity.ts';
import { tokenRequest } from '../support/oauth.ts';
import { startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('Revoking OAuth app tokens', function () {
  this.timeout(90_000);
  let f: OAuthFixture;
  let other: RunningApi;

  before(async () => {
    [f, other] = await Promise.all([startOAuthFixture(), startApi()]);
  });
  after(() => Promise.all([f.api.stop(), other.stop()]));

  const meOn = (api: RunningApi, token: string) => fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(token) });

  function revoke(params: Record<string, string>, options: { basic?: [string, string]; json?: boolean } = {}) {
    const headers: Record<string, string> = { 'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded' };
    if (options.basic) headers.authorization = `Basic ${Buffer.from(options.basic.map(encodeURIComponent).join(':')).toString('base64')}`;
    return fetch(`${f.api.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers,
      body: options.json ? JSON.stringify(params) : new URLSearchParams(params).toString(),
    });
  }

  /** The revocation reaches the other process by NOTIFY: give it a moment. */
  async function expectRefusedOnOtherProcess(token: string) {
    for (let attempt = 0; attempt < 40; attempt++) {
      const response = await meOn(other, token);
      if (response.status === 401) {
        expect((await json(response)).code).to.equal('token_revoked');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect.fail('the token still works on the other API process');
  }

  const refresh = (refreshToken: string) => tokenRequest(other.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken }, { basic: f.basic() });

  it('announces the endpoint in the authorization server metadata', async () => {
    const metadata = await json(await fetch(`${f.api.baseUrl}/.well-known/oauth-authorization-server`));
    expect(metadata.revocation_endpoint).to.equal(`${new URL(metadata.token_endpoint).origin}/oauth/revoke`);
  });

  it('revokes one access token on every process, and leaves its refresh token working', async () => {
    const tokens = await f.tokensFor();
    expect((await meOn(other, tokens.access_token)).status).to.equal(200);
    const response = await revoke({ token: tokens.access_token, token_type_hint: 'access_token' }, { basic: f.basic() });
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    await expectRefusedOnOtherProcess(tokens.access_token);
    expect((await refresh(tokens.refresh_token)).status).to.equal(200);
  });

  it('revokes a refresh token with every access token of its grant (JSON body, client_secret_post)', async () => {
    const tokens = await f.tokensFor();
    const response = await revoke({ token: tokens.refresh_token, client_id: f.app.client_id, client_secret: f.app.client_secret! }, { json: true });
    expect(response.status).to.equal(200);
    await expectRefusedOnOtherProcess(tokens.access_token);
    const refused = await refresh(tokens.refresh_token);
    expect([refused.status, (await json(refused)).error]).to.deep.equal([400, 'invalid_grant']);
  });

  it("answers 200 for another client's token and revokes nothing of it", async () => {
    const tokens = await f.tokensFor();
    const response = await revoke({ token: tokens.access_token, client_id: f.publicApp.client_id });
    expect(response.status).to.equal(200);
    expect((await revoke({ token: tokens.refresh_token, client_id: f.publicApp.client_id })).status).to.equal(200);
    expect((await meOn(other, tokens.access_token)).status).to.equal(200);
    expect((await refresh(tokens.refresh_token)).status).to.equal(200);
  });

  it('answers 401 invalid_client for a wrong secret and 400 invalid_request without a token', async () => {
    const wrong = await revoke({ token: 'anything' }, { basic: [f.app.client_id, 'not-the-secret'] });
    expect([wrong.status, (await json(wrong)).error]).to.deep.equal([401, 'invalid_client']);
    const missing = await revoke({}, { basic: f.basic() });
    expect([missing.status, (await json(missing)).error]).to.deep.equal([400, 'invalid_request']);
  });

  it("lets the user revoke an app's access and refresh tokens through POST /v1/auth/revoke", async () => {
    const tokens = await f.tokensFor();
    const userRevoke = (token: string) =>
      fetch(`${f.api.baseUrl}/v1/auth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(f.userToken) },
        body: JSON.stringify({ token }),
      });
    expect((await userRevoke(tokens.access_token)).status).to.equal(204);
    await expectRefusedOnOtherProcess(tokens.access_token);
    expect((await userRevoke(tokens.refresh_token)).status).to.equal(204);
    const refused = await refresh(tokens.refresh_token);
    expect((await json(refused)).error).to.equal('invalid_grant');
  });
});
