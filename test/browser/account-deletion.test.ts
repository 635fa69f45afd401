// Deleting one's account from /account in Chromium (issue 46): the link, the confirmation step, the
// CSRF-checked form (with the choice to close one's petitions), a stale login asked to log in again,
// and the account gone afterwards.
import { expect } from 'chai';
import { z } from 'zod';
import type { Browser, Page } from 'puppeteer-core';
import { sql } from '../../db/sql.ts';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { sessionCookie, typeLogin, verifiedAccount } from '../support/browser-login.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow, eventually } from '../support/events.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

describe('deleting an account from /account, in Chromium', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let provider: RunningProvider;
  let chromium: TestBrowser;

  before(async () => {
    const port = await freePort();
    provider = await startProvider(port);
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('browser-deletion'), RALLY_IDP_PORT: String(port), OIDC_CLIENT_SECRET: CLIENT.client_secret };
    api = await startApi(env);
    worker = await startWorker(env);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), provider?.stop()]);
  });

  async function loggedIn(person: { email: string; password: string }): Promise<Page> {
    const page = await (await (chromium.browser as Browser).createBrowserContext()).newPage();
    await page.goto(`${PUBLIC_URL}/login?return_to=%2Faccount`, { waitUntil: 'load' });
    await typeLogin(page, person);
    return page;
  }
  const postDelete = (cookie: string, form: Record<string, string>) =>
    fetch(`${api.baseUrl}/account-deletion`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  it('deletes the account after the confirmation step, closing their petitions when asked; the form needs the CSRF token and the box ticked', async () => {
    const { db } = testEnvironment();
    const person = await verifiedAccount(provider.issuer);
    const petition = await createPetitionRow(person.id, 'Their petition, closed by their choice');
    const page = await loggedIn(person);
    await Promise.all([page.waitForNavigation(), page.click('a[href="/account-deletion"]')]);
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Delete your account?');

    const cookie = await sessionCookie(page);
    const csrf = await page.$eval('input[name=csrf_token]', (el) => el.getAttribute('value') ?? '');
    expect((await postDelete(cookie, { confirm: 'yes' })).status, 'without the CSRF token').to.equal(403);
    expect((await postDelete(cookie, { confirm: 'yes', csrf_token: 'x'.repeat(43) })).status, 'a wrong CSRF token').to.equal(403);
    expect((await postDelete(cookie, { csrf_token: csrf })).status, 'not confirmed').to.equal(400);

    await page.click('input[name=close_petitions]');
    await page.click('input[name=confirm]');
    await Promise.all([page.waitForNavigation(), page.click('form[action="/account-deletion"] button[type=submit]')]);
    expect(new URL(page.url()).pathname).to.equal('/goodbye');
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Your account is being deleted');
    await page.goto(`${PUBLIC_URL}/account`, { waitUntil: 'load' });
    expect(await page.content()).to.include('You are not logged in');

    await eventually(
      async () => {
        const left = await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM users WHERE id = ${person.id}`);
        return left === 0 ? true : undefined;
      },
      60_000,
      'the account to be erased',
    );
    const status = await db.oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM petitions WHERE id = ${petition}`);
    expect(status, 'the box to close their petitions was ticked').to.equal('closed');
    const relogin = await (await (chromium.browser as Browser).createBrowserContext()).newPage();
    await relogin.goto(`${PUBLIC_URL}/login?return_to=%2Faccount`, { waitUntil: 'load' });
    await relogin.waitForSelector('#email');
    await relogin.type('#email', person.email);
    await relogin.type('#password', person.password);
    await Promise.all([relogin.waitForNavigation(), relogin.click('button[type=submit]')]);
    expect(new URL(relogin.url()).host, 'the provider refuses the deleted account').not.to.equal(new URL(PUBLIC_URL).host);
  });

  it('asks a login older than RALLY_SENSITIVE_ACTION_MAX_AGE to log in again before deleting', async () => {
    const { db } = testEnvironment();
    const person = await verifiedAccount(provider.issuer);
    const page = await loggedIn(person);
    await db.query(sql.typeAlias('void')`UPDATE browser_sessions SET created_at = now() - interval '16 minutes' WHERE user_id = ${person.id}`);
    await page.goto(`${PUBLIC_URL}/account-deletion`, { waitUntil: 'load' });
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Log in again to delete your account');
    const csrf = await page.$eval('input[name=csrf_token]', (el) => el.getAttribute('value') ?? '');
    const refused = await postDelete(await sessionCookie(page), { csrf_token: csrf, confirm: 'yes' });
    expect(await refused.text()).to.include('Log in again');
    expect(await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM users WHERE id = ${person.id}`)).to.equal(1);

    await Promise.all([page.waitForNavigation(), page.click('form[action="/logout"] button')]);
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Log in to delete your account');
    await Promise.all([page.waitForNavigation(), page.click('a[href^="/login"]')]);
    await typeLogin(page, person);
    expect(new URL(page.url()).pathname).to.equal('/account-deletion');
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Delete your account?');
  });
});
