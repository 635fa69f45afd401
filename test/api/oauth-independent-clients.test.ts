// The whole app journey with two more independent clients (issue 27, "Proof with real clients"): oauth4webapi, unchanged (it checks PKCE, state and the RFC
// 9207 iss itself), and plain fetch with the spec's JSON bodies. Each one authorizes, exchanges, refreshes, calls /v1/users/me, revokes, and is refused
// afterwards.
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { approveConsent, authorize, browserCookiesOf, consentFormActionOf, decide, registerApp, type RegisteredApp } from '../support/oauth.ts';
import { pkce } from '../support/oauth-fixture.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

describe('OAuth 2.0 with oauth4webapi and with plain fetch', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let app: RegisteredApp;
  let userToken: string;
  let userId: string;
  const redirectUri = 'http://127.0.0.1:8767/callback';

  before(async () => {
    api = await startApi();
    const user = await createTestUser();
    userId = user.id;
    userToken = (await login(api.baseUrl, user)).accessToken;
    app = await registerApp({ name: 'Campaign Tool', redirectUris: [redirectUri], scopes: 'read:profile', confidential: true });
  });
  after(() => api.stop());

  /** The API answers for PUBLIC_URL; the library's own customFetch option sends it to the test port. */
  const options = {
    [oauth.customFetch]: (url: string, init: RequestInit) => fetch(url.replace(PUBLIC_URL, api.baseUrl), init),
    [oauth.allowInsecureRequests]: true,
  };

  async function refusedAfterRevocation(accessToken: string) {
    for (let attempt = 0; attempt < 40; attempt++) {
      if ((await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(accessToken) })).status === 401) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect.fail('the access token still works after its refresh token was revoked');
  }

  it('completes the flow with oauth4webapi, revokes, and is refused', async () => {
    const issuer = new URL(PUBLIC_URL);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }));
    const client: oauth.Client = { client_id: app.client_id };
    const clientAuth = oauth.ClientSecretPost(app.client_secret!);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'read:profile',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const page = await authorize(api.baseUrl, userToken, Object.fromEntries(authorizationUrl.searchParams));
    const approved = await decide(api.baseUrl, consentFormActionOf(await page.text()), 'approve', { cookie: browserCookiesOf(page), token: userToken });
    const callback = new URL(approved.headers.get('location')!);
    const params = oauth.validateAuthResponse(as, client, callback, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, options),
    );
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, options),
    );
    expect(refreshed.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
    const me = await oauth.protectedResourceRequest(refreshed.access_token, 'GET', new URL(`${PUBLIC_URL}/v1/users/me`), undefined, undefined, options);
    expect((await json(me)).data.id).to.equal(userId);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, options));
    await refusedAfterRevocation(refreshed.access_token);
    const again = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, options);
    expect(again.status).to.equal(400);
  });

  it('completes the flow with plain fetch and JSON bodies, revokes, and is refused', async () => {
    const { verifier, challenge } = pkce();
    const query = await approveConsent(api.baseUrl, userToken, {
      client_id: app.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'read:profile',
      state: 'plain-fetch',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect([query.get('state'), query.get('iss')]).to.deep.equal(['plain-fetch', PUBLIC_URL]);
    const post = (path: string, body: Record<string, string>) =>
      fetch(`${api.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: app.client_id, client_secret: app.client_secret!, ...body }),
      });
    const tokens = await json(
      await post('/oauth/token', { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: redirectUri, code_verifier: verifier }),
    );
    expect(tokens).to.include({ token_type: 'Bearer', scope: 'read:profile' });
    const refreshed = await json(await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }));
    const me = await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(refreshed.access_token) });
    expect((await json(me)).data.id).to.equal(userId);
    expect((await post('/oauth/revoke', { token: refreshed.refresh_token })).status).to.equal(200);
    await refusedAfterRevocation(refreshed.access_token);
    const again = await post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token });
    expect((await json(again)).error).to.equal('invalid_grant');
  });
});
