// "Never email me again" in a real Chromium (issue 42): a guest form may name a stranger's address, so every guest email carries a link that stops all guest
// mail to that address. Opening it changes nothing; its page's button does, and only from Rally's own page (a form on another site is refused). Afterwards no
// guest email reaches the address, however its +tag is spelled.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { testEnvironment } from '../support/environment.ts';
import { startHostSite, type HostSite } from '../support/host-site.ts';
import { createTestUser, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const MIN_FILL_MS = 3_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const STOP_LINK = /http:\/\/rally\.test\/guest-emails\/unsubscribe\/([A-Za-z0-9_-]{43})\.[A-Za-z0-9_-]{24}/;

describe('"never email me again" for guest signing emails, in Chromium', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let host: HostSite;
  let mail: MailCatcher;
  let chromium: TestBrowser;
  let creator: string;

  before(async () => {
    [host, mail] = await Promise.all([startHostSite(), startMailCatcher()]);
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('guest-mail-stop'), SMTP_URL: mail.url, RALLY_SIGN_LIMIT_PER_HOUR: '1000' };
    api = await startApi(env);
    worker = await startWorker(env);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
    creator = (await login(api.baseUrl, await createTestUser({ name: 'Cleo Creator' }))).accessToken;
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), host?.stop(), mail?.stop()]);
  });

  async function signAsGuest(page: Page, slug: string, guest: { name: string; email: string }): Promise<void> {
    await page.goto(`${PUBLIC_URL}/p/${slug}`);
    await page.type('#gs-name', guest.name);
    await page.type('#gs-email', guest.email);
    await sleep(MIN_FILL_MS);
    await Promise.all([page.waitForNavigation(), page.click('form.gs button[type=submit]')]);
    expect(await page.$eval('h1', (h1) => h1.textContent)).to.equal('Check your email');
  }
  const heading = (page: Page) => page.$eval('h1', (h1) => h1.textContent);
  const stopsOf = (hashBase64url: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ n: z.number() }))`
      SELECT count(*)::int AS n FROM guest_mail_stops WHERE address_hash = ${sql.binary(Buffer.from(hashBase64url, 'base64url'))}`);

  it('stops all guest mail to the address from the email’s link, only through its own page', async () => {
    const [first, second] = [await publishedPetition(api.baseUrl, creator), await publishedPetition(api.baseUrl, creator)];
    const local = `stranger-${randomUUID().slice(0, 8)}`;
    const domain = `${randomUUID().slice(0, 8)}.example`;
    const page = await chromium.browser.newPage();

    // Someone fills a form with a stranger's address: the email offers the stranger a way out.
    await signAsGuest(page, first.slug, { name: 'Not The Owner', email: `${local}@${domain}` });
    const message = await mail.waitFor(`${local}@${domain}`, /^Confirm your signature/);
    const [link, hash] = STOP_LINK.exec(message.text) ?? [];
    expect(link, message.text).to.be.a('string');

    // A form on another site posting to the link is refused, and stops nothing.
    await page.goto(host.show(`<form method="post" action="${link}"><button id="go" type="submit">Win a prize</button></form>`));
    await Promise.all([page.waitForNavigation(), page.click('#go')]);
    expect(await heading(page)).to.equal('Request refused');
    expect(await stopsOf(hash!)).to.equal(0);

    // The owner opens the link (nothing happens yet), then presses the button.
    await page.goto(link!);
    expect(await heading(page)).to.equal('Never email me again');
    expect(await stopsOf(hash!)).to.equal(0);
    await Promise.all([page.waitForNavigation(), page.click('form button[type=submit]')]);
    expect(await heading(page)).to.equal('Done: no more emails');
    expect(await stopsOf(hash!)).to.equal(1);

    // More forms with the address (in another spelling) mail nothing; another address still gets its email.
    await signAsGuest(page, second.slug, { name: 'Not The Owner', email: `${local.toUpperCase()}+again@${domain}` });
    const other = `someone-${randomUUID().slice(0, 8)}@${domain}`;
    await signAsGuest(page, second.slug, { name: 'Someone Else', email: other });
    await mail.waitFor(other, /^Confirm your signature/);
    const toStranger = mail.messages.filter((each) => each.to.some((to) => to.toLowerCase().startsWith(local)));
    expect(toStranger.map((each) => each.subject)).to.deep.equal([message.subject]);
    await page.close();
  });

  it('answers a bad link with a 404 page, and a POST from another site with a 403 page', async () => {
    for (const token of ['not-a-link', `${'A'.repeat(43)}.${'A'.repeat(24)}`]) {
      const landing = await fetch(`${api.baseUrl}/guest-emails/unsubscribe/${token}`);
      expect(landing.status).to.equal(404);
      expect(landing.headers.get('content-type')).to.match(/^text\/html/);
      expect((await fetch(`${api.baseUrl}/guest-emails/unsubscribe/${token}`, { method: 'POST' })).status).to.equal(404);
    }
    const crossSite = await fetch(`${api.baseUrl}/guest-emails/unsubscribe/${'A'.repeat(43)}.${'A'.repeat(24)}`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).to.equal(403);
    expect(await crossSite.text()).to.include('Request refused');
  });
});
