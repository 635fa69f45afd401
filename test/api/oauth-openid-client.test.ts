import { expect } from 'chai';
import * as oidc from 'openid-client';
import { json } from '../support/http.ts';
import { createTestUser, login } from '../support/identity.ts';
import { authorize, browserCookiesOf, consentFormActionOf, decide, registerApp, type RegisteredApp } from '../support/oauth.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

// A third-party app written against openid-client, unchanged: it knows Rally only by its public
// URL. customFetch (a library option) sends that URL to the test API's port.
describe('OAuth 2.0 with openid-client as a third-party app', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let app: RegisteredApp;
  let userToken: string;
  let userId: string;
  const redirectUri = 'http://127.0.0.1:8765/callback';

  before(async () => {
    api = await startApi();
    const user = await createTestUser({ name: 'Ada Campaigner' });
    userId = user.id;
    userToken = (await login(api.baseUrl, user)).accessToken;
    app = await registerApp({ name: 'Campaign Tool', redirectUris: [redirectUri], scopes: 'read:profile write:petitions', confidential: true });
  });
  after(() => api.stop());

  const toTestApi: oidc.CustomFetch = (url, options) => fetch(url.replace(PUBLIC_URL, api.baseUrl), options as RequestInit);

  it('discovers Rally, completes authorization code + PKCE, refreshes, and calls /v1/users/me', async () => {
    const config = await oidc.discovery(new URL(PUBLIC_URL), app.client_id, undefined, oidc.ClientSecretBasic(app.client_secret!), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: toTestApi,
    });
    config[oidc.customFetch] = toTestApi;
    expect(config.serverMetadata()).to.include({ issuer: PUBLIC_URL, token_endpoint: `${PUBLIC_URL}/oauth/token` });

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'read:profile',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });

    // The user's side: the consent screen (with their login token), then Approve.
    const page = await authorize(api.baseUrl, userToken, Object.fromEntries(authorizationUrl.searchParams));
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.include('Campaign Tool').and.include('See your profile');
    const approved = await decide(api.baseUrl, consentFormActionOf(html), 'approve', { cookie: browserCookiesOf(page), token: userToken });
    expect(approved.status).to.equal(302);
    const callback = new URL(approved.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).to.equal(redirectUri);

    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type.toLowerCase()).to.equal('bearer');
    expect(tokens.scope).to.equal('read:profile');
    expect(tokens.expires_in).to.be.a('number');
    expect(tokens.refresh_token).to.be.a('string');

    const me = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${PUBLIC_URL}/v1/users/me`), 'GET');
    expect(me.status).to.equal(200);
    expect((await json(me)).data.id).to.equal(userId);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
    const again = await oidc.fetchProtectedResource(config, refreshed.access_token, new URL(`${PUBLIC_URL}/v1/users/me`), 'GET');
    expect((await json(again)).data.id).to.equal(userId);

    // Revoking the refresh token takes the grant's access tokens down with it (RFC 7009).
    await oidc.tokenRevocation(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    let refused = false;
    for (let attempt = 0; attempt < 40 && !refused; attempt++) {
      // openid-client throws on the 401's WWW-Authenticate challenge: its error carries the status.
      const status = await oidc.fetchProtectedResource(config, refreshed.access_token, new URL(`${PUBLIC_URL}/v1/users/me`), 'GET').then(
        (response) => response.status,
        (error: { status?: number }) => error.status,
      );
      refused = status === 401;
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(refused, 'the access token still works after revocation').to.equal(true);
    let refreshRefused: unknown;
    await oidc.refreshTokenGrant(config, refreshed.refresh_token!).catch((error: unknown) => (refreshRefused = error));
    expect(refreshRefused).to.be.instanceOf(Error);
  });
});
