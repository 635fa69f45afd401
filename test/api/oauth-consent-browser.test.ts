import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { json } from '../support/http.ts';
import { createTestUser, login } from '../support/identity.ts';
import { registerApp, startCallbackServer, tokenRequest } from '../support/oauth.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

// The consent screen in a real browser: it renders, the keyboard reaches Approve once it is armed,
// and approving lands on the app's redirect with a code the app can exchange.
describe('OAuth consent screen in headless Chromium', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let browser: TestBrowser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let page: Page;

  before(async () => {
    [api, callback] = await Promise.all([startApi(), startCallbackServer()]);
    // At Rally's public address, so the form's Origin is the one the consent route expects.
    browser = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
  });
  after(async () => {
    await Promise.all([browser?.close(), api?.stop(), callback?.close()]);
  });

  it('renders, lets the keyboard reach Approve, and lands on the redirect with the code', async () => {
    const user = await createTestUser();
    const userToken = (await login(api.baseUrl, user)).accessToken;
    const app = await registerApp({ name: 'Petition Planner', redirectUris: [callback.url], scopes: 'read:profile write:petitions', confidential: true });
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: callback.url,
      response_type: 'code',
      state: 'browser-state',
      scope: 'read:profile write:petitions',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });

    page = await browser.browser.newPage();
    // The user's login token goes to Rally's authorize page and its consent form only, never to the app.
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      const toRally =
        (url.startsWith(`${PUBLIC_URL}/oauth/authorize`) && request.method() === 'GET') ||
        (url.startsWith(`${PUBLIC_URL}/oauth/interaction/`) && request.method() === 'POST');
      void request.continue(toRally ? { headers: { ...request.headers(), authorization: `Bearer ${userToken}` } } : undefined);
    });

    const response = await page.goto(`${PUBLIC_URL}/oauth/authorize?${query}`);
    expect(response?.status()).to.equal(200);
    expect(await page.title()).to.include('Petition Planner');
    // Expressions run in the page (the tests' TypeScript has no DOM types).
    const text = String(await page.evaluate('document.body.innerText'));
    expect(text).to.include('Petition Planner wants to use your Rally account');
    expect(text).to.include('Start, edit, publish, close and delete petitions');

    await page.waitForSelector('button[value=approve]:not([disabled])');
    let focused = '';
    for (let presses = 0; presses < 10 && focused !== 'approve'; presses++) {
      await page.keyboard.press('Tab');
      focused = String(await page.evaluate('document.activeElement?.value ?? ""'));
    }
    expect(focused, 'keyboard focus reaches Approve').to.equal('approve');

    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).to.equal(callback.url);
    expect(landed.searchParams.get('state')).to.equal('browser-state');
    const code = landed.searchParams.get('code');
    expect(code).to.be.a('string');
    expect(callback.hits.map((hit) => hit.searchParams.get('code'))).to.include(code);

    const exchange = await tokenRequest(
      api.baseUrl,
      { grant_type: 'authorization_code', code: code!, redirect_uri: callback.url, code_verifier: verifier },
      { basic: [app.client_id, app.client_secret!] },
    );
    expect(exchange.status).to.equal(200);
    expect((await json(exchange)).scope).to.equal('read:profile write:petitions');
  });
});
