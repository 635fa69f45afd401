// Token introspection (RFC 7662) and refresh-token reuse detection (RFC 9700 4.14.2): what a
// confidential app learns of its own tokens, that it learns nothing of another app's, and that a
// replayed refresh token leaves no token of its grant active.
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { registerApp, tokenRequest, type RegisteredApp } from '../support/oauth.ts';
import { REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';

describe('POST /oauth/introspect', function () {
  this.timeout(60_000);
  let f: OAuthFixture;
  let otherApp: RegisteredApp;

  before(async () => {
    f = await startOAuthFixture();
    otherApp = await registerApp({ name: 'Other Tool', redirectUris: [REDIRECT], scopes: 'read:profile', confidential: true });
  });
  after(() => f.api.stop());

  function post(path: string, params: Record<string, string>, options: { basic?: [string, string]; json?: boolean } = {}) {
    const headers: Record<string, string> = { 'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded' };
    if (options.basic) headers.authorization = `Basic ${Buffer.from(options.basic.map(encodeURIComponent).join(':')).toString('base64')}`;
    return fetch(`${f.api.baseUrl}${path}`, { method: 'POST', headers, body: options.json ? JSON.stringify(params) : new URLSearchParams(params).toString() });
  }
  const introspect = (token: string, basic: [string, string] = f.basic()) => post('/oauth/introspect', { token }, { basic });
  const activeOf = async (token: string) => (await json(await introspect(token))).active as boolean;
  const refresh = (refreshToken: string) => tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken }, { basic: f.basic() });

  it('is announced in the authorization server metadata, for confidential clients only', async () => {
    const metadata = await json(await fetch(`${f.api.baseUrl}/.well-known/oauth-authorization-server`));
    expect(metadata.introspection_endpoint).to.equal(`${new URL(metadata.token_endpoint).origin}/oauth/introspect`);
    expect(metadata.introspection_endpoint_auth_methods_supported).to.have.members(['client_secret_basic', 'client_secret_post']);
  });

  it('describes an active access token and refresh token of the calling client', async () => {
    const tokens = await f.tokensFor('read:profile write:petitions');
    const response = await introspect(tokens.access_token);
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const access = await json(response);
    expect(access).to.include({ active: true, client_id: f.app.client_id, scope: 'read:profile write:petitions', sub: f.user.id, token_type: 'Bearer' });
    expect(access.exp).to.be.greaterThan(Date.now() / 1000);
    expect(access.iss).to.equal((await json(await fetch(`${f.api.baseUrl}/.well-known/oauth-authorization-server`))).issuer);
    const byPost = await post(
      '/oauth/introspect',
      { token: tokens.refresh_token, client_id: f.app.client_id, client_secret: f.app.client_secret! },
      { json: true },
    );
    expect(await json(byPost)).to.include({ active: true, client_id: f.app.client_id, scope: 'read:profile write:petitions', sub: f.user.id });
  });

  it('answers active false for a revoked access token and a revoked refresh token', async () => {
    const tokens = await f.tokensFor();
    expect((await post('/oauth/revoke', { token: tokens.access_token }, { basic: f.basic() })).status).to.equal(200);
    expect(await activeOf(tokens.access_token)).to.equal(false);
    expect(await activeOf(tokens.refresh_token)).to.equal(true);
    expect((await post('/oauth/revoke', { token: tokens.refresh_token }, { basic: f.basic() })).status).to.equal(200);
    expect(await json(await introspect(tokens.refresh_token))).to.deep.equal({ active: false });
  });

  it("answers active false, and nothing more, for another client's tokens", async () => {
    const tokens = await f.tokensFor();
    const otherBasic: [string, string] = [otherApp.client_id, otherApp.client_secret!];
    expect(await json(await introspect(tokens.access_token, otherBasic))).to.deep.equal({ active: false });
    expect(await json(await introspect(tokens.refresh_token, otherBasic))).to.deep.equal({ active: false });
    expect(await activeOf(tokens.access_token)).to.equal(true);
  });

  it('answers active false for a token that is not one of Rally’s', async () => {
    expect(await json(await introspect('rrt_not-a-token'))).to.deep.equal({ active: false });
    expect(await json(await introspect('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'))).to.deep.equal({ active: false });
  });

  it('refuses a client that does not authenticate: 401 invalid_client', async () => {
    const tokens = await f.tokensFor();
    const anonymous = await post('/oauth/introspect', { token: tokens.access_token });
    expect([anonymous.status, (await json(anonymous)).error]).to.deep.equal([401, 'invalid_client']);
    const wrongSecret = await introspect(tokens.access_token, [f.app.client_id, 'rcs_wrong']);
    expect([wrongSecret.status, (await json(wrongSecret)).error]).to.deep.equal([401, 'invalid_client']);
    const publicClient = await post('/oauth/introspect', { token: tokens.access_token, client_id: f.publicApp.client_id });
    expect([publicClient.status, (await json(publicClient)).error]).to.deep.equal([401, 'invalid_client']);
    const missing = await post('/oauth/introspect', {}, { basic: f.basic() });
    expect([missing.status, (await json(missing)).error]).to.deep.equal([400, 'invalid_request']);
  });

  describe('refresh-token reuse detection', () => {
    it('a replayed refresh token revokes the grant: every token issued along the chain is inactive and refused', async () => {
      const first = await f.tokensFor();
      const second = await json(await refresh(first.refresh_token));
      const third = await json(await refresh(second.refresh_token));
      expect(await activeOf(first.refresh_token)).to.equal(false);
      expect(await activeOf(third.refresh_token)).to.equal(true);

      // An attacker replays the first refresh token, which the app rotated away long ago.
      const replay = await refresh(first.refresh_token);
      expect([replay.status, (await json(replay)).error]).to.deep.equal([400, 'invalid_grant']);
      for (const token of [first.access_token, second.access_token, third.access_token, third.refresh_token]) {
        expect(await activeOf(token)).to.equal(false);
      }
      const legitimate = await refresh(third.refresh_token);
      expect([legitimate.status, (await json(legitimate)).error]).to.deep.equal([400, 'invalid_grant']);
      await f.expectRejected(third.access_token);
    });

    it('leaves the same user’s other grants to the app alone', async () => {
      const [victim, bystander] = [await f.tokensFor(), await f.tokensFor()];
      await refresh(victim.refresh_token);
      expect((await refresh(victim.refresh_token)).status).to.equal(400);
      expect(await activeOf(bystander.access_token)).to.equal(true);
      expect((await refresh(bystander.refresh_token)).status).to.equal(200);
    });
  });
});
