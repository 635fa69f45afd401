// Issue 27's proof in a real browser: an app registered through POST /v1/oauth/apps sends a browser with no Rally login to /oauth/authorize; the person TYPES
// their email and password into Rally's login form, approves the consent screen and lands on the app's redirect with code, state and iss. The app, on
// openid-client unchanged, exchanges the code, refreshes, calls /v1/users/me, revokes at /oauth/revoke and is refused.
import { expect } from 'chai';
import * as oidc from 'openid-client';
import type { Browser } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { typeLogin, verifiedAccount } from '../support/browser-login.ts';
import { json } from '../support/http.ts';
import { bearer, login } from '../support/identity.ts';
import { startCallbackServer } from '../support/oauth.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

describe('an app authorized in Chromium by a person who logs in by typing', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let provider: RunningProvider;
  let chromium: TestBrowser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;

  before(async () => {
    const port = await freePort();
    provider = await startProvider(port);
    [api, callback] = await Promise.all([startApi({ RALLY_IDP_PORT: String(port), OIDC_CLIENT_SECRET: CLIENT.client_secret }), startCallbackServer()]);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), provider?.stop(), callback?.close()]);
  });

  /** The app knows Rally only by its public URL; customFetch (a library option) reaches the test API's port. */
  const toTestApi: oidc.CustomFetch = (url, options) => fetch(url.replace(PUBLIC_URL, api.baseUrl), options as RequestInit);

  async function registerAppAsDeveloper() {
    const developer = await verifiedAccount(provider.issuer);
    const developerToken = (await login(api.baseUrl, developer)).accessToken;
    const response = await fetch(`${api.baseUrl}/v1/oauth/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(developerToken) },
      body: JSON.stringify({ name: 'Street Canvasser', redirect_uris: [callback.url], scopes: ['read:profile', 'read:petitions'] }),
    });
    expect(response.status).to.equal(201);
    return (await json(response)).data as { client_id: string; client_secret: string };
  }

  it('logs in at authorize by typing, approves, and the app exchanges, refreshes, calls the API, revokes and is refused', async () => {
    const app = await registerAppAsDeveloper();
    const person = await verifiedAccount(provider.issuer);
    const config = await oidc.discovery(new URL(PUBLIC_URL), app.client_id, undefined, oidc.ClientSecretBasic(app.client_secret), {
      algorithm: 'oauth2',
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: toTestApi,
    });
    config[oidc.customFetch] = toTestApi;

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback.url,
      scope: 'read:profile',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    expect(authorizationUrl.origin).to.equal(PUBLIC_URL);

    // The browser has no Rally session: authorize sends it to /login, which sends it to the provider's form.
    const context = await (chromium.browser as Browser).createBrowserContext();
    const page = await context.newPage();
    await page.goto(authorizationUrl.href, { waitUntil: 'load' });
    expect(new URL(page.url()).origin, 'on the login form').to.equal(new URL(provider.issuer).origin);
    await typeLogin(page, person);

    // Back on Rally at the same authorization request: the consent screen names the app and the scope.
    // Approve answers once the screen has been visible for half a second (issue 42).
    await page.waitForSelector('button[value=approve]:not([disabled])');
    const onConsent = new URL(page.url());
    expect(onConsent.pathname).to.equal('/oauth/authorize');
    expect(Object.fromEntries(onConsent.searchParams)).to.deep.equal(Object.fromEntries(authorizationUrl.searchParams));
    expect(String(await page.evaluate('document.body.innerText'))).to.include('Street Canvasser wants to use your Rally account');

    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[value=approve]')]);
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).to.equal(callback.url);
    expect(landed.searchParams.get('state')).to.equal(state);
    expect(landed.searchParams.get('iss')).to.equal(PUBLIC_URL);
    expect(landed.searchParams.get('code')).to.be.a('string');
    expect(callback.hits.map((hit) => hit.href)).to.include(landed.href);
    await context.close();

    // The app's side, with openid-client: it checks state and iss itself.
    const tokens = await oidc.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.scope).to.equal('read:profile');
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
    const me = await oidc.fetchProtectedResource(config, refreshed.access_token, new URL(`${PUBLIC_URL}/v1/users/me`), 'GET');
    expect(me.status).to.equal(200);
    expect((await json(me)).data).to.include({ id: person.id, email: person.email });

    await oidc.tokenRevocation(config, refreshed.refresh_token!, { token_type_hint: 'refresh_token' });
    let status: number | undefined;
    for (let attempt = 0; attempt < 40 && status !== 401; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      // openid-client throws on the 401's WWW-Authenticate challenge: its error carries the status.
      status = await oidc.fetchProtectedResource(config, refreshed.access_token, new URL(`${PUBLIC_URL}/v1/users/me`), 'GET').then(
        (response) => response.status,
        (error: { status?: number }) => error.status,
      );
    }
    expect(status, 'the access token after revocation').to.equal(401);
    let refused: unknown;
    await oidc.refreshTokenGrant(config, refreshed.refresh_token!).catch((error: unknown) => (refused = error));
    expect(refused, 'the revoked refresh token').to.be.instanceOf(Error);
  });
});
