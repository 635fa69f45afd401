// People with an account sign in a real Chromium (issue 26): sign up, verify by the emailed link, log in by typing, sign with one click and see the count rise;
// logging out (or everywhere, or a suspension) ends sessions; forms from another site or without the CSRF token are refused; a session cookie never
// authenticates /v1; a widget on another origin signs through the account popup and learns of it by postMessage.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { sessionCookie, typeLogin, verificationLink, verifiedAccount } from '../support/browser-login.ts';
import { startHostSite, type HostSite } from '../support/host-site.ts';
import { json } from '../support/http.ts';
import { bearer, login } from '../support/identity.ts';
import { lowContrastText } from '../support/page-checks.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

describe('browser sessions and one-click signing, in Chromium', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let provider: RunningProvider;
  let host: HostSite;
  let chromium: TestBrowser;
  let mailDir: string;
  let organiser: string;

  before(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'rally-browser-mail-'));
    const port = await freePort();
    provider = await startProvider(port, { RALLY_MAIL_DIR: mailDir });
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('browser-sessions'), RALLY_IDP_PORT: String(port), OIDC_CLIENT_SECRET: CLIENT.client_secret };
    host = await startHostSite();
    api = await startApi(env);
    worker = await startWorker(env);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
    organiser = (await login(api.baseUrl, await verifiedAccount(provider.issuer))).accessToken;
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), provider?.stop(), host?.stop()]);
    if (mailDir) await rm(mailDir, { recursive: true, force: true });
  });

  const count = async (petitionId: string) => (await json(await fetch(`${api.baseUrl}/v1/petitions/${petitionId}`))).data.signature_count as number;

  async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await (chromium.browser as Browser).createBrowserContext();
    const page = await context.newPage();
    await page.setViewport({ width: 900, height: 1000 });
    return { context, page };
  }

  const accountPage = async (cookie: string) => (await fetch(`${api.baseUrl}/account`, { headers: { cookie } })).text();

  it('signs up, verifies the address from the email, logs in by typing, signs with one click; logout kills the cookie', async () => {
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Open the school yard on weekends' });
    const { context, page } = await freshPage();
    await page.goto(`${PUBLIC_URL}/p/${petition.slug}`, { waitUntil: 'load' });
    await Promise.all([page.waitForNavigation(), page.click('a[href^="/signup"]')]);
    await page.waitForSelector('#name');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      expect(await lowContrastText(page), scheme).to.deep.equal([]);
    }

    // A mistake first: the errors are announced next to the field and in a summary.
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.$eval('[role=alert]', (el) => el.textContent)).to.include('Enter your name');
    expect(await page.$eval('#name', (el) => el.getAttribute('aria-describedby'))).to.equal('name-error');

    const person = { email: `ada-${randomUUID().slice(0, 8)}@example.test`, password: 'correct horse battery' };
    await page.type('#name', 'Ada Lovelace');
    await page.type('#email', person.email);
    await page.type('#password', person.password);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Check your email');

    // Logged in before confirming: the page says the address is not confirmed, and offers no sign button.
    await page.goto(`${PUBLIC_URL}/login?return_to=${encodeURIComponent(`/p/${petition.slug}`)}`, { waitUntil: 'load' });
    await typeLogin(page, person);
    expect(await page.$eval('#sign .notice', (el) => el.textContent)).to.include('not confirmed yet');
    expect(await page.$('form.sign-form')).to.equal(null);

    await page.goto(await verificationLink(mailDir, person.email), { waitUntil: 'load' });
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Email address confirmed');

    await page.goto(`${PUBLIC_URL}/login?return_to=${encodeURIComponent(`/p/${petition.slug}`)}`, { waitUntil: 'load' });
    await typeLogin(page, person);
    expect(new URL(page.url()).pathname).to.equal(`/p/${petition.slug}`);
    const button = await page.waitForSelector('form.sign-form button[type=submit]');
    expect(await button!.evaluate((el) => el.textContent)).to.equal('Sign as Ada Lovelace');
    expect(await page.$eval('label[for=comment]', (el) => el.textContent)).to.include('Comment');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      expect(await lowContrastText(page), scheme).to.deep.equal([]);
    }

    // Keyboard order: the comment, the anonymity box, then the button, each with a visible focus ring.
    await page.focus('#comment');
    for (const expected of ['is_anonymous', 'BUTTON']) {
      await page.keyboard.press('Tab');
      const focused = (await page.evaluate(`({ id: document.activeElement.id || document.activeElement.tagName,
        outline: getComputedStyle(document.activeElement).outlineStyle })`)) as { id: string; outline: string };
      expect(focused).to.deep.equal({ id: expected, outline: 'solid' });
    }

    const before = await count(petition.id);
    await page.type('#comment', 'Our kids need space to play.');
    await Promise.all([page.waitForNavigation(), button!.click()]);
    expect(await page.$eval('[data-signed]', (el) => el.textContent)).to.include('You signed this petition');
    expect(await page.$eval('[data-count]', (el) => el.textContent)).to.equal(String(before + 1));
    expect(await count(petition.id)).to.equal(before + 1);

    // Once more from a stale copy of the form: told so, not counted twice.
    const cookie = await sessionCookie(page);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await accountPage(cookie))![1]!;
    const again = await fetch(`${api.baseUrl}/p/${petition.slug}/sign`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf }).toString(),
    });
    expect(again.status).to.equal(303);
    expect(await count(petition.id)).to.equal(before + 1);

    // A session cookie is never a credential of the API.
    const me = await fetch(`${api.baseUrl}/v1/users/me`, { headers: { cookie } });
    expect(me.status).to.equal(401);

    await page.goto(`${PUBLIC_URL}/account`, { waitUntil: 'load' });
    await Promise.all([page.waitForNavigation(), page.click('form[action="/logout"] button')]);
    expect(await page.content()).to.include('You are not logged in');
    expect(await accountPage(cookie)).to.include('You are not logged in');
    const afterLogout = await fetch(`${api.baseUrl}/p/${petition.slug}/sign`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf }).toString(),
    });
    expect(afterLogout.status).to.equal(303);
    expect(afterLogout.headers.get('location')).to.match(/^\/login\?return_to=/);
    await context.close();
  });

  async function loggedIn(person: { email: string; password: string }) {
    const browser = await freshPage();
    await browser.page.goto(`${PUBLIC_URL}/login`, { waitUntil: 'load' });
    await typeLogin(browser.page, person);
    return { ...browser, cookie: await sessionCookie(browser.page) };
  }

  it('logs out everywhere: every session of the person ends', async () => {
    const person = await verifiedAccount(provider.issuer);
    const [first, second] = [await loggedIn(person), await loggedIn(person)];
    expect(first.cookie, 'a new cookie at every login').to.not.equal(second.cookie);
    expect(await accountPage(second.cookie)).to.include(person.displayName);
    await first.page.goto(`${PUBLIC_URL}/account`, { waitUntil: 'load' });
    await Promise.all([first.page.waitForNavigation(), first.page.click('form[action="/logout/everywhere"] button')]);
    expect(await accountPage(first.cookie)).to.include('You are not logged in');
    expect(await accountPage(second.cookie)).to.include('You are not logged in');
    await Promise.all([first.context.close(), second.context.close()]);
  });

  it("ends a suspended person's session", async () => {
    const [person, admin] = [await verifiedAccount(provider.issuer), await verifiedAccount(provider.issuer, 'admin')];
    const session = await loggedIn(person);
    expect(await accountPage(session.cookie)).to.include(person.displayName);
    const adminToken = (await login(api.baseUrl, admin)).accessToken;
    const suspended = await fetch(`${api.baseUrl}/v1/admin/users/${person.id}/suspend`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(adminToken) },
      body: JSON.stringify({ reason: 'spam' }),
    });
    expect(suspended.status).to.be.oneOf([200, 201]);
    expect(await accountPage(session.cookie)).to.include('You are not logged in');
    await session.context.close();
  });

  it('refuses form posts from another site or without the CSRF token, and hostile bodies with a 4xx page', async () => {
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Plant trees on Mill Street' });
    const session = await loggedIn(await verifiedAccount(provider.issuer));
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await accountPage(session.cookie))![1]!;
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${api.baseUrl}/p/${petition.slug}/sign`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    const form = new URLSearchParams({ csrf_token: csrf }).toString();
    const refusals: [Record<string, string>, string, number][] = [
      [{ origin: 'http://evil.test' }, form, 403],
      [{ origin: PUBLIC_URL, 'sec-fetch-site': 'cross-site' }, form, 403],
      [{}, form, 403],
      [{ origin: 'null', 'sec-fetch-site': 'cross-site' }, form, 403],
      [{ origin: PUBLIC_URL }, '', 403],
      [{ origin: PUBLIC_URL }, new URLSearchParams({ csrf_token: 'x'.repeat(43) }).toString(), 403],
      [{ origin: PUBLIC_URL }, `${form}&csrf_token=${csrf}`, 400],
      [{ origin: PUBLIC_URL, 'content-type': 'application/json' }, '{"csrf_token":"x"}', 415],
      [{ origin: PUBLIC_URL }, `${form}&comment=${'a'.repeat(40_000)}`, 413],
      [{ origin: PUBLIC_URL }, `${form}&comment=${'a'.repeat(600)}`, 422],
      [{ origin: PUBLIC_URL }, `${form}&comment=%E0%A4%A`, 303],
    ];
    for (const [headers, body, status] of refusals) {
      const response = await post(headers, body);
      expect(response.status, `${JSON.stringify(headers)} ${body.slice(0, 60)}`).to.equal(status);
      if (status !== 303) expect(response.headers.get('content-type')).to.match(/^text\/html/);
    }
    // Only the last, well-formed one signed.
    expect(await count(petition.id)).to.equal(1);

    // Another site's page posting the form in Chromium, even with a leaked token: the SameSite=Lax
    // cookie stays home, nobody is logged in for that request, and nothing is signed.
    const other = await publishedPetition(api.baseUrl, organiser, { title: 'Fix the bus shelter' });
    const attack = host.show(
      `<form id="f" method="post" action="${PUBLIC_URL}/p/${other.slug}/sign"><input name="csrf_token" value="${csrf}"></form>` +
        `<script>document.getElementById('f').submit()</script>`,
    );
    await session.page.goto(attack);
    // Sent on to log in first (and, being logged in, back to the petition page): never signed.
    await session.page.waitForFunction(`location.origin !== '${host.origin}'`);
    await session.page.waitForNetworkIdle();
    expect(new URL(session.page.url()).pathname).to.not.equal(`/p/${other.slug}/sign`);
    expect(await count(other.id)).to.equal(0);

    // A logout form from another site is refused as well.
    const logout = await fetch(`${api.baseUrl}/logout`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: 'http://evil.test', 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(logout.status).to.equal(403);
    expect(await accountPage(session.cookie)).to.include('Log out');
    await session.context.close();
  });

  it('signs from a widget on another origin through the account popup, and the widget learns of it', async () => {
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Keep the ferry running in winter' });
    const person = await verifiedAccount(provider.issuer);
    const oembed = await json(await fetch(`${api.baseUrl}/v1/oembed?url=${encodeURIComponent(`${PUBLIC_URL}/p/${petition.slug}`)}`));
    const { context, page } = await freshPage();
    await page.goto(host.show(oembed.html), { waitUntil: 'load' });
    const frame = (await (await page.waitForSelector('iframe[data-rally-embed]'))!.contentFrame())!;
    const link = await frame.waitForSelector('[data-account-popup]');
    const opened = new Promise<Page>((resolve) => context.once('targetcreated', async (target) => resolve((await target.page())!)));
    await link!.click();
    const popup = await opened;
    await popup.waitForSelector('#email');
    await typeLogin(popup, person);
    // The popup's button answers once the page has been visible for half a second (issue 42).
    const sign = await popup.waitForSelector('form.sign-form button[type=submit]:not([disabled])');
    await Promise.all([popup.waitForNavigation(), sign!.click()]);
    await popup.waitForSelector('[data-signed-petition]');
    await frame.waitForSelector('[data-widget-signed]:not([hidden])', { timeout: 10_000 });
    await frame.waitForFunction(`document.querySelector('[data-count]').textContent === '1'`, { timeout: 5_000 });
    expect(await count(petition.id)).to.equal(1);
    await context.close();
  });
});
