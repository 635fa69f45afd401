// Guest signing in a real Chromium (issue 26): a visitor without an account types a name and an email on /p/{slug} or in a widget on another site, the
// confirmation email arrives (a real SMTP catcher), its link is clicked, and only then does the signature count: the live count rises, the signature is listed
// and exported, and the creator's webhook hears signature.created once.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Frame, Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { startHostSite, type HostSite } from '../support/host-site.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../support/smtp.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

// Expectations come from the issue: same answer for known and unknown addresses, a second try is not counted
// twice, one reminder and expiry within RALLY_SIGNATURE_CONFIRMATION_TTL.
// Short enough to watch the reminder (halfway) and the expiry, long enough to confirm the others first.
const TTL_SECONDS = 24;
const MIN_FILL_MS = 3_100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const guestAddress = (name: string) => `${name}-${randomUUID().slice(0, 8)}@${randomUUID().slice(0, 8)}.example`;

function confirmationLink(mail: CaughtMail): string {
  const link = /https?:\/\/\S+\/signatures\/confirm\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no confirmation link in:\n${mail.raw}`);
  return link;
}

describe('guest signing with an emailed confirmation, in Chromium', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let host: HostSite;
  let mail: MailCatcher;
  let receiver: WebhookReceiver;
  let chromium: TestBrowser;
  let creator: string;

  before(async () => {
    [host, mail, receiver] = await Promise.all([startHostSite(), startMailCatcher(), startWebhookReceiver()]);
    const env = {
      ...SHORT_WINDOWS,
      RALLY_TASK_QUEUE: uniqueTaskQueue('guest-signing'),
      SMTP_URL: mail.url,
      RALLY_SIGNATURE_CONFIRMATION_TTL: `${TTL_SECONDS}s`,
      RALLY_SIGN_LIMIT_PER_HOUR: '1000',
      RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: '3',
      RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR: '5',
    };
    api = await startApi(env);
    worker = await startWorker(env);
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
    creator = (await login(api.baseUrl, await createTestUser({ name: 'Cleo Creator' }))).accessToken;
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), host?.stop(), mail?.stop(), receiver?.close()]);
  });

  const newPetition = (title: string) => publishedPetition(api.baseUrl, creator, { title, signaturePrivacy: 'public' });
  const count = async (id: string) => (await json(await fetch(`${api.baseUrl}/v1/petitions/${id}`))).data.signature_count as number;

  async function fillAndSend(where: Page | Frame, guest: { name: string; email: string }): Promise<void> {
    await where.type('#gs-name', guest.name);
    await where.type('#gs-email', guest.email);
    await sleep(MIN_FILL_MS);
    await Promise.all([where.waitForNavigation(), where.click('form.gs button[type=submit]')]);
  }

  async function confirmInBrowser(link: string): Promise<string> {
    const page = await chromium.browser.newPage();
    await page.goto(link);
    expect(await page.$eval('h1', (h1) => h1.textContent)).to.equal('Confirm your signature');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    const heading = (await page.$eval('h1', (h1) => h1.textContent))!;
    await page.close();
    return heading;
  }

  it('counts a guest from /p/{slug} once the emailed link is clicked, lists, exports and announces it once', async () => {
    const petition = await newPetition('Plant trees along the canal');
    const hook = await fetch(`${api.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(creator) },
      body: JSON.stringify({ url: receiver.url(`/guest-${petition.id}`), events: ['signature.created'] }),
    });
    expect(hook.status).to.equal(201);
    const guest = { name: 'Gina Guest', email: guestAddress('gina') };

    const watching = await chromium.browser.newPage();
    await watching.goto(`${PUBLIC_URL}/p/${petition.slug}`);
    await watching.waitForSelector('[data-live="on"]', { timeout: 10_000 });
    const form = await chromium.browser.newPage();
    await form.goto(`${PUBLIC_URL}/p/${petition.slug}`);
    expect(await form.$eval('#gs-consent', (box) => (box as unknown as { checked: boolean }).checked)).to.equal(false);
    await fillAndSend(form, guest);
    expect(await form.$eval('h1', (h1) => h1.textContent)).to.equal('Check your email');

    const message = await mail.waitFor(guest.email, /^Confirm your signature/);
    await sleep(500);
    expect(await count(petition.id)).to.equal(0);
    expect(receiver.received(`/guest-${petition.id}`)).to.have.length(0);

    expect(await confirmInBrowser(confirmationLink(message))).to.equal('Thank you: your signature is confirmed');
    await watching.waitForFunction(`document.querySelector('[data-count]').textContent === '1'`, { timeout: 5_000 });

    const list = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures`));
    expect(list.data).to.have.length(1);
    expect(list.data[0].user.display_name).to.equal('Gina Guest');
    const exported = await json(await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/signatures/export?format=json`, { headers: bearer(creator) }));
    expect(exported.map((row: { signer_email: string }) => row.signer_email)).to.deep.equal([guest.email]);
    const [delivery] = await receiver.waitFor(`/guest-${petition.id}`, 1);
    expect(JSON.parse(delivery!.body)).to.deep.include({ type: 'signature.created' });

    // Again, as the same guest: the same "check your email" page, an email saying so, not counted twice.
    await form.goto(`${PUBLIC_URL}/p/${petition.slug}`);
    await fillAndSend(form, guest);
    expect(await form.$eval('h1', (h1) => h1.textContent)).to.equal('Check your email');
    await mail.waitFor(guest.email, /^You have already signed/);
    // The old link still lands on a clear page, and confirming it again changes nothing.
    await form.goto(confirmationLink(message));
    expect(await form.$eval('h1', (h1) => h1.textContent)).to.equal('You have already signed');
    const again = await fetch(confirmationLink(message).replace(PUBLIC_URL, api.baseUrl), { method: 'POST' });
    expect(again.status).to.equal(200);
    expect(await again.text()).to.include('Your signature was confirmed already');
    // A third try within the hour: the same page, and no further email (one per address and petition an hour).
    await form.goto(`${PUBLIC_URL}/p/${petition.slug}`);
    await fillAndSend(form, guest);
    expect(await form.$eval('h1', (h1) => h1.textContent)).to.equal('Check your email');
    await sleep(2_000);
    expect(mail.messages.filter((each) => each.to.includes(guest.email))).to.have.length(2);
    expect(await count(petition.id)).to.equal(1);
    expect(receiver.received(`/guest-${petition.id}`)).to.have.length(1);
    await Promise.all([watching.close(), form.close()]);
  });

  it('completes the guest flow inside the widget on a site of another origin', async () => {
    const petition = await newPetition('Open the school yard on weekends');
    const guest = { name: 'Walt Widget', email: guestAddress('walt') };
    const oembed = await json(await fetch(`${api.baseUrl}/v1/oembed?url=${encodeURIComponent(`${PUBLIC_URL}/p/${petition.slug}`)}`));
    const page = await chromium.browser.newPage();
    await page.goto(host.show(oembed.html as string), { waitUntil: 'load' });
    const frame = (await (await page.waitForSelector('iframe[data-rally-embed]'))!.contentFrame())!;
    await frame.waitForSelector('#gs-name');
    await fillAndSend(frame, guest);
    expect(await frame.$eval('h1', (h1) => h1.textContent)).to.equal('Check your email');
    const message = await mail.waitFor(guest.email, /^Confirm your signature/);
    expect(await confirmInBrowser(confirmationLink(message))).to.equal('Thank you: your signature is confirmed');
    expect(await count(petition.id)).to.equal(1);
    await page.close();
  });

  it('reminds once halfway and expires an unconfirmed guest signature after the TTL', async () => {
    const petition = await newPetition('Repair the footbridge');
    const guest = { name: 'Rita Reminded', email: guestAddress('rita') };
    const page = await chromium.browser.newPage();
    await page.goto(`${PUBLIC_URL}/p/${petition.slug}`);
    await fillAndSend(page, guest);
    const first = await mail.waitFor(guest.email, /^Confirm your signature/);
    const reminder = await mail.waitFor(guest.email, /^Reminder: confirm your signature/, TTL_SECONDS * 1000);
    expect(confirmationLink(reminder)).to.equal(confirmationLink(first));
    await sleep(TTL_SECONDS * 500 + 2_000);
    const expired = await fetch(confirmationLink(first).replace(PUBLIC_URL, api.baseUrl), { method: 'POST' });
    expect(expired.status).to.equal(410);
    expect(await expired.text()).to.include('This link has expired');
    expect(mail.messages.filter((message) => message.to.includes(guest.email))).to.have.length(2);
    expect(await count(petition.id)).to.equal(0);
    await page.close();
  });

  describe('refusals, as a stranger would try them (HTML pages, never a 500)', () => {
    let petition: { id: string; slug: string };
    before(async () => {
      petition = await newPetition('Keep the night bus running');
    });

    /** The form's token as a visitor gets it with the page. */
    async function formToken(slug = petition.slug): Promise<string> {
      const page = await (await fetch(`${api.baseUrl}/p/${slug}`)).text();
      return /name="form_token" value="([^"]+)"/.exec(page)![1]!;
    }
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}, slug = petition.slug) =>
      fetch(`${api.baseUrl}/p/${slug}/sign-by-email`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
    const filled = async (email: string, extra: Record<string, string> = {}) => ({ name: 'Stan Stranger', email, form_token: await formToken(), ...extra });

    it('answers a known and an unknown address the same way', async () => {
      const known = await createTestUser({ name: 'Kim Known' });
      const unknown = guestAddress('nobody');
      const forms = [await filled(known.email), await filled(unknown)];
      await sleep(MIN_FILL_MS);
      const [a, b] = await Promise.all(forms.map((fields) => post(fields)));
      expect([a!.status, b!.status]).to.deep.equal([200, 200]);
      const [pageA, pageB] = [await a!.text(), await b!.text()];
      expect(pageA.replace(known.email, 'ADDRESS')).to.equal(pageB.replace(unknown, 'ADDRESS'));
      // The known address is told in its email that it may confirm (it has not signed this petition yet).
      expect((await mail.waitFor(known.email, /^Confirm your signature/)).text).to.include('/signatures/confirm/');
    });

    it('refuses a form sent too fast, one with its honeypot filled, and a forged token', async () => {
      const tooFast = await post(await filled(guestAddress('speedy')));
      expect(tooFast.status).to.equal(400);
      expect(await tooFast.text())
        .to.include('role="alert"')
        .and.include('We could not take this form');
      const honey = await filled(guestAddress('bot'), { website: 'http://spam.example' });
      await sleep(MIN_FILL_MS);
      const honeypot = await post(honey);
      expect(honeypot.status).to.equal(400);
      expect(await honeypot.text()).to.include('We could not take this form');
      const forged = await post({
        name: 'Fay Forger',
        email: guestAddress('fay'),
        form_token: `${Math.floor(Date.now() / 1000) - 60}.AAAAAAAAAAAAAAAAAAAAAAAA`,
      });
      expect(forged.status).to.equal(400);
      expect(await forged.text()).to.include('This form has expired');
    });

    it('answers bad and hostile input with a 4xx page: a bad email, a huge field, a wrong petition, another site', async () => {
      const fields = await filled('not an address');
      await sleep(MIN_FILL_MS);
      const bad = await post(fields);
      expect(bad.status).to.equal(400);
      const page = await bad.text();
      expect(page).to.match(/aria-invalid="true" aria-describedby="email-error"/);
      expect(page).to.include('id="email-error"').and.include('Enter an email address like name@example.org.');

      const huge = await post({ ...fields, comment: 'x'.repeat(40_000) });
      expect(huge.status).to.equal(413);
      expect(huge.headers.get('content-type')).to.match(/^text\/html/);

      const nowhere = await post({ ...fields, email: guestAddress('lost') }, {}, 'no-such-petition-anywhere');
      expect(nowhere.status).to.equal(404);
      expect(nowhere.headers.get('content-type')).to.match(/^text\/html/);

      const crossSite = await post({ ...fields, email: guestAddress('evil') }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).to.equal(403);

      for (const link of ['/signatures/confirm/not-a-link', `/signatures/confirm/${randomUUID()}.${'A'.repeat(43)}`]) {
        const landing = await fetch(`${api.baseUrl}${link}`);
        expect(landing.status).to.equal(404);
        expect(await landing.text()).to.include('This link is not valid');
        expect((await fetch(`${api.baseUrl}${link}`, { method: 'POST' })).status).to.equal(404);
      }
    });

    it('takes guest forms past the per-domain threshold (the link proves the mailbox) and refuses them past its hard ceiling', async () => {
      // Issue 44: the threshold (3 here) only flags, and a guest form is not flagged; the ceiling (5) refuses.
      const domain = `${randomUUID().slice(0, 8)}.example`;
      const forms = await Promise.all([1, 2, 3, 4, 5, 6].map(async (n) => filled(`signer${n}@${domain}`)));
      await sleep(MIN_FILL_MS);
      const statuses = [];
      for (const fields of forms) statuses.push((await post(fields)).status);
      expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
    });
  });
});
