// Downloading one's data from /account in Chromium (issue 46): the CSRF-checked "Download my data"
// form starts the export the API starts, says the link will be emailed, and the email arrives; a
// second click while one runs and a fourth export in a day get clear refusal pages, never a 500.
import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';
import { sql } from '../../db/sql.ts';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { sessionCookie, typeLogin, verifiedAccount } from '../support/browser-login.ts';
import { testEnvironment } from '../support/environment.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

const DOWNLOAD = 'form[action="/account/export"] button[type=submit]';

describe('downloading my data from /account, in Chromium', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess | undefined;
  let provider: RunningProvider;
  let mail: MailCatcher;
  let chromium: TestBrowser;
  let env: Record<string, string>;

  before(async () => {
    const port = await freePort();
    mail = await startMailCatcher();
    provider = await startProvider(port);
    env = {
      RALLY_TASK_QUEUE: uniqueTaskQueue('browser-export'),
      RALLY_IDP_PORT: String(port),
      OIDC_CLIENT_SECRET: CLIENT.client_secret,
      SMTP_URL: mail.url,
    };
    // No worker yet: the first export stays running until the test starts one, so the second click surely meets it.
    api = await startApi(env);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), provider?.stop()]);
    await mail?.stop();
  });

  async function onAccountPage(person: { email: string; password: string }): Promise<Page> {
    const page = await (await (chromium.browser as Browser).createBrowserContext()).newPage();
    await page.goto(`${PUBLIC_URL}/login?return_to=%2Faccount`, { waitUntil: 'load' });
    await typeLogin(page, person);
    expect(new URL(page.url()).pathname).to.equal('/account');
    return page;
  }
  async function clickDownload(page: Page): Promise<{ status: number; heading: string | null }> {
    const [answer] = await Promise.all([page.waitForNavigation(), page.click(DOWNLOAD)]);
    return { status: answer!.status(), heading: await page.$eval('h1', (el) => el.textContent) };
  }

  it('starts an export whose link is emailed; a second click while it runs gets the 409 page; no CSRF token, 403', async () => {
    const person = await verifiedAccount(provider.issuer);
    const page = await onAccountPage(person);

    const refused = await fetch(`${api.baseUrl}/account/export`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: await sessionCookie(page), origin: PUBLIC_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(refused.status, 'a form without the CSRF token').to.equal(403);
    expect(await refused.text()).to.include('Request refused');

    const started = await clickDownload(page);
    expect(started).to.deep.equal({ status: 202, heading: 'Your data is on its way' });
    expect(await page.$eval('[role=status]', (el) => el.textContent)).to.include('email');

    await page.goto(`${PUBLIC_URL}/account`, { waitUntil: 'load' });
    const again = await clickDownload(page);
    expect(again.status, 'an export of theirs is still running').to.equal(409);
    expect(await page.$eval('[role=alert]', (el) => el.textContent)).to.include('already being prepared');

    worker = await startWorker(env);
    const message = await mail.waitFor(person.email, /data export is ready/, 60_000);
    expect(message.text).to.match(/\/v1\/account-exports\/[0-9a-f-]{36}\/download\?token=/);
  });

  it('answers the fourth export in 24 hours with the 429 page and Retry-After', async () => {
    const person = await verifiedAccount(provider.issuer);
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO account_exports (id, user_id, status) SELECT gen_random_uuid(), ${person.id}, 'ready' FROM generate_series(1, 3)`);
    const page = await onAccountPage(person);
    const [answer] = await Promise.all([page.waitForNavigation(), page.click(DOWNLOAD)]);
    expect(answer!.status()).to.equal(429);
    expect(Number(answer!.headers()['retry-after'])).to.be.greaterThan(0);
    expect(await page.$eval('h1', (el) => el.textContent)).to.equal('Too many requests');
    expect(await page.$eval('[role=alert]', (el) => el.textContent)).to.include('At most 3 exports in 24 hours');
  });
});
