// Double-clickjacking in Chromium (issue 42): the consent screen's Approve and the widget popup's Sign answer a click only once their page has been visible for
// half a second: a click the moment the page appears presses nothing, and hiding the page starts the wait over. Also here: a login callback replayed with its
// login cookie logs nobody in (the attempt is no row now).
import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { typeLogin, verifiedAccount } from '../support/browser-login.ts';
import { login } from '../support/identity.ts';
import { registerApp, startCallbackServer } from '../support/oauth.ts';
import { pkce } from '../support/oauth-fixture.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

const ARM_DELAY_MS = 500;

// Records, from the moment the document exists, when the button first appeared and when it became enabled.
// Runs in every document before its own scripts: when the watched button first exists, whether it was
// disabled then, and when it was first enabled (performance.now(), the document's own clock).
const RECORDER = `(() => {
  const seen = (window.__armed = { appearedAt: null, disabledWhenSeen: null, enabledAt: null });
  const look = () => {
    const button = document.querySelector('button[value=approve], form.sign-form button[type=submit]');
    if (!button) return;
    if (seen.appearedAt === null) Object.assign(seen, { appearedAt: performance.now(), disabledWhenSeen: button.disabled });
    if (!button.disabled && seen.enabledAt === null) seen.enabledAt = performance.now();
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
})();`;

type Armed = { appearedAt: number; disabledWhenSeen: boolean; enabledAt: number | null };

describe('buttons armed after half a second of being seen, in Chromium', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let provider: RunningProvider;
  let chromium: TestBrowser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;

  before(async () => {
    const port = await freePort();
    provider = await startProvider(port);
    // Publishing a petition goes through its workflow: a worker of this API's task queue.
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('armed-buttons'), RALLY_IDP_PORT: String(port), OIDC_CLIENT_SECRET: CLIENT.client_secret };
    [api, worker, callback] = await Promise.all([startApi(env), startWorker(env), startCallbackServer()]);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), provider?.stop(), callback?.close()]);
  });

  async function loggedInPage(person: { email: string; password: string }): Promise<Page> {
    const page = await (await (chromium.browser as Browser).createBrowserContext()).newPage();
    // The rule is about a page being seen: this one is the tab in front, whatever else the browser opened.
    await page.bringToFront();
    await page.evaluateOnNewDocument(RECORDER);
    await page.goto(`${PUBLIC_URL}/login`, { waitUntil: 'load' });
    await typeLogin(page, person);
    return page;
  }

  const armed = async (page: Page) => (await page.evaluate('window.__armed')) as Armed;

  /** The button appeared disabled and was enabled no sooner than half a second later. */
  async function expectArmedLate(page: Page, selector: string) {
    await page.waitForSelector(`${selector}:not([disabled])`).catch(async (error: Error) => {
      const state = await page.evaluate('JSON.stringify({ visibility: document.visibilityState, armed: window.__armed })');
      throw new Error(`${selector} was never armed (${String(state)}): ${error.message}`);
    });
    const seen = await armed(page);
    expect(seen.disabledWhenSeen, 'disabled when it appeared').to.equal(true);
    expect(seen.enabledAt! - seen.appearedAt, 'enabled after').to.be.at.least(ARM_DELAY_MS);
  }

  it('Approve on the consent screen: a click as the page appears presses nothing; hiding the page starts the wait over', async () => {
    const page = await loggedInPage(await verifiedAccount(provider.issuer));
    // The second click of a double click, landing as the screen appears. Whether it landed inside the
    // half second is read from the page: the button not yet enabled once the click is done. On a loaded
    // machine it can land later, and proves nothing; the screen is then opened again for a new app
    // (an approved app would not be asked again), at most five times.
    let state = '';
    for (let attempt = 1; ; attempt += 1) {
      state = `armed-${attempt}`;
      const app = await registerApp({ name: `Canvass Planner ${attempt}`, redirectUris: [callback.url], scopes: 'read:profile' });
      const query = new URLSearchParams({
        client_id: app.client_id,
        redirect_uri: callback.url,
        response_type: 'code',
        state,
        scope: 'read:profile',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      });
      await page.goto(`${PUBLIC_URL}/oauth/authorize?${query}`, { waitUntil: 'domcontentloaded' });
      const approve = (await page.waitForSelector('button[value=approve]'))!;
      const box = (await approve.boundingBox())!;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      const landedWhileDisabled = await page.evaluate('window.__armed.enabledAt === null').catch(() => false);
      if (landedWhileDisabled) break;
      expect(attempt, 'attempts until a click landed inside the half second').to.be.below(5);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(new URL(page.url()).pathname, 'still on the consent screen').to.equal('/oauth/authorize');
    expect(callback.hits.filter((hit) => hit.searchParams.get('state') === state)).to.deep.equal([]);
    await expectArmedLate(page, 'button[value=approve]');

    // The page is hidden and shown again (another tab in front, then this one): disabled while
    // hidden, armed again half a second after it shows.
    const visibilityScript = (visibility: string) => `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${visibility}' });
        document.dispatchEvent(new Event('visibilitychange')); window.__shownAt = performance.now();`;
    const setVisibility = (visibility: string) => page.evaluate(visibilityScript(visibility));
    await setVisibility('hidden');
    await new Promise((resolve) => setTimeout(resolve, ARM_DELAY_MS + 200));
    expect(await page.$eval('button[value=approve]', (el) => (el as unknown as { disabled: boolean }).disabled), 'while hidden').to.equal(true);
    // Read in the same turn as the page is shown: a separate round trip to the page can take longer
    // than the half second on a loaded machine (a full run saw the button armed by the time it looked).
    const disabledWhenShown = await page.evaluate(`${visibilityScript('visible')} document.querySelector('button[value=approve]').disabled`);
    expect(disabledWhenShown, 'just shown').to.equal(true);
    await page.waitForSelector('button[value=approve]:not([disabled])');
    expect(Number(await page.evaluate('performance.now() - window.__shownAt')), 'armed again after').to.be.at.least(ARM_DELAY_MS);

    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[value=approve]')]);
    const landed = new URL(page.url());
    expect([`${landed.origin}${landed.pathname}`, landed.searchParams.get('state')]).to.deep.equal([callback.url, state]);
    await page.browserContext().close();
  });

  it("the widget popup's Sign button, while the petition page's own form needs no wait", async () => {
    const organiser = (await login(api.baseUrl, await verifiedAccount(provider.issuer))).accessToken;
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Light the canal path at night' });
    const page = await loggedInPage(await verifiedAccount(provider.issuer));
    await page.goto(`${PUBLIC_URL}/p/${petition.slug}/sign-popup`, { waitUntil: 'domcontentloaded' });
    await expectArmedLate(page, 'form.sign-form button[type=submit]');
    await page.goto(`${PUBLIC_URL}/p/${petition.slug}`, { waitUntil: 'domcontentloaded' });
    expect((await armed(page)).disabledWhenSeen, 'the page form, which no other site opens').to.equal(false);
    await page.browserContext().close();
  });

  it('logs nobody in from a login callback replayed with its login cookie', async () => {
    const page = await (await (chromium.browser as Browser).createBrowserContext()).newPage();
    let callbackUrl: string | undefined;
    page.on('request', (request) => {
      if (request.url().startsWith(`${PUBLIC_URL}/auth/callback`)) callbackUrl = request.url();
    });
    await page.goto(`${PUBLIC_URL}/login`, { waitUntil: 'load' });
    const loginCookie = (await page.cookies(PUBLIC_URL)).find((cookie) => cookie.name === 'rally_login');
    expect(loginCookie, 'the login cookie').to.not.equal(undefined);
    await typeLogin(page, await verifiedAccount(provider.issuer));
    expect(callbackUrl).to.be.a('string');
    const replayed = await fetch(callbackUrl!.replace(PUBLIC_URL, api.baseUrl), {
      headers: { cookie: `rally_login=${loginCookie!.value}` },
      redirect: 'manual',
    });
    expect(replayed.status).to.equal(400);
    expect(replayed.headers.getSetCookie().filter((cookie) => cookie.startsWith('rally_session=') && !/Max-Age=0/i.test(cookie))).to.deep.equal([]);
    await page.browserContext().close();
  });
});
