// Issue 44 in a real Chromium: a crowd is people, not a farm. Each test's browser reaches Rally through a relay bound to its own loopback address (no proxy
// headers), so Rally sees it on its own /24. A logged-in signature past the network block threshold is counted and flagged; a block-listed network gets the 403
// page on the sign form; a block-listed guest is told "check your email" and mailed nothing.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'puppeteer-core';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { requestFrom } from '../support/bound-client.ts';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { typeLogin, verifiedAccount } from '../support/browser-login.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { CLIENT, freePort, startProvider, type RunningProvider } from '../identity-provider/provider-process.ts';

const PER_BLOCK = 2;
const MIN_FILL_MS = 3_100;
const BLOCKED_MESSAGE = 'Signing from this address, network or email domain is blocked on this platform.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const Flags = z.object({ user_id: z.string(), flags: z.array(z.string()).nullable() });

describe('crowds and block-lists on the browser forms, in Chromium (issue 44)', function () {
  this.timeout(240_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let provider: RunningProvider;
  let mail: MailCatcher;
  let admin: string;
  let organiser: string;
  const opened: { relay: TcpProxy; chromium: TestBrowser }[] = [];
  const listed: string[] = [];
  /** A /24 of 127/8 of this test's own (the signing crowds API test uses second octets 10 to 210). */
  const ownNetwork = () => `127.${220 + Math.floor(Math.random() * 30)}.${Math.floor(Math.random() * 256)}`;

  before(async () => {
    const port = await freePort();
    [provider, mail] = await Promise.all([startProvider(port), startMailCatcher()]);
    const env = {
      RALLY_TASK_QUEUE: uniqueTaskQueue('browser-crowds'),
      RALLY_IDP_PORT: String(port),
      OIDC_CLIENT_SECRET: CLIENT.client_secret,
      SMTP_URL: mail.url,
      RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: String(PER_BLOCK),
      // Every account here is at example.test: the domain threshold is not what these tests are about.
      RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR: '100000',
    };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    admin = (await login(api.baseUrl, await verifiedAccount(provider.issuer, 'admin'))).accessToken;
    organiser = (await login(api.baseUrl, await verifiedAccount(provider.issuer))).accessToken;
  });
  after(async () => {
    for (const id of listed) await call('DELETE', `/v1/admin/signing-lists/${id}`);
    for (const { relay, chromium } of opened) await Promise.all([chromium.close(), relay.close()]);
    await Promise.all([api?.stop(), worker?.stop(), provider?.stop(), mail?.stop()]);
  });

  /** A browser whose every request to Rally comes from `address`. */
  async function browserFrom(address: string): Promise<Browser> {
    const relay = await startTcpProxy('127.0.0.1', Number(new URL(api.baseUrl).port), { localAddress: address });
    const chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${relay.port}`] });
    opened.push({ relay, chromium });
    return chromium.browser;
  }
  async function call(method: string, route: string, body?: unknown) {
    const response = await fetch(`${api.baseUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(admin) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: response.status === 204 ? null : await json(response) };
  }
  async function blockList(subjectType: 'network' | 'email_domain', subject: string): Promise<void> {
    const added = await call('POST', '/v1/admin/signing-lists', { list: 'block', subject_type: subjectType, subject });
    expect(added.status).to.equal(201);
    listed.push(added.body.data.id);
  }
  /** Signs through the API as `token` from `address`; answers status and problem code. */
  async function apiSign(address: string, petitionId: string, token: string) {
    const answer = await requestFrom(address, `${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: '{}',
    });
    return `${answer.status} ${(JSON.parse(answer.body) as { code?: string }).code ?? ''}`.trim();
  }
  /** Every API process reloads the lists on the database's announcement: waits until this one has. */
  const untilBlocked = (address: string, petitionId: string, token: string) =>
    eventually(
      async () => ((await apiSign(address, petitionId, token)) === '403 signing_blocked' ? true : undefined),
      15_000,
      'the block-list entry in effect',
    );
  const count = async (id: string) => (await json(await fetch(`${api.baseUrl}/v1/petitions/${id}`))).data.signature_count as number;
  const flagsOf = async (petitionId: string) =>
    new Map(
      (await testEnvironment().db.any(sql.type(Flags)`SELECT user_id, flags FROM signatures WHERE petition_id = ${petitionId}`)).map((row) => [
        row.user_id,
        row.flags,
      ]),
    );

  async function loggedInOn(browser: Browser, person: { email: string; password: string }, slug: string): Promise<Page> {
    const page = await (await browser.createBrowserContext()).newPage();
    await page.goto(`${PUBLIC_URL}/login?return_to=${encodeURIComponent(`/p/${slug}`)}`, { waitUntil: 'load' });
    await typeLogin(page, person);
    await page.waitForSelector('form.sign-form button[type=submit]');
    return page;
  }

  it('counts a logged-in browser signature past the network block threshold and flags it for the moderators', async () => {
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Keep the library open on Sundays' });
    const network = ownNetwork();
    // Two neighbours on the same network sign first, through the API: the threshold's two.
    const neighbours = await Promise.all([1, 2].map(async () => verifiedAccount(provider.issuer)));
    for (const [index, neighbour] of neighbours.entries()) {
      expect(await apiSign(`${network}.${index + 1}`, petition.id, (await login(api.baseUrl, neighbour)).accessToken)).to.equal('201');
    }
    const person = await verifiedAccount(provider.issuer);
    const page = await loggedInOn(await browserFrom(`${network}.50`), person, petition.slug);

    const [answer] = await Promise.all([page.waitForNavigation(), page.click('form.sign-form button[type=submit]')]);
    expect(answer!.status()).to.equal(200);
    expect(await page.$eval('[data-signed]', (el) => el.textContent)).to.include('You signed this petition');
    expect(await page.$eval('[data-count]', (el) => el.textContent)).to.equal('3');
    expect(await count(petition.id)).to.equal(3);

    const flags = await flagsOf(petition.id);
    expect(neighbours.map((neighbour) => flags.get(neighbour.id))).to.deep.equal([null, null]);
    expect(flags.get(person.id)).to.deep.equal(['network_block']);
    const crowds = await call('GET', `/v1/admin/petitions/${petition.id}/flagged-crowds`);
    expect(crowds.body.data.map((crowd: { subject_type: string; flagged: number }) => [crowd.subject_type, crowd.flagged])).to.deep.equal([
      ['network_block', 1],
    ]);
    // Never shown publicly.
    expect(await (await fetch(`${api.baseUrl}/p/${petition.slug}`)).text()).not.to.include('network_block');
  });

  it('answers the sign form from a block-listed network with the 403 page and counts nothing', async () => {
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Light the path by the river' });
    const network = ownNetwork();
    await blockList('network', `${network}.0/24`);
    const probe = (await login(api.baseUrl, await verifiedAccount(provider.issuer))).accessToken;
    await untilBlocked(`${network}.9`, petition.id, probe);
    const person = await verifiedAccount(provider.issuer);
    const page = await loggedInOn(await browserFrom(`${network}.50`), person, petition.slug);

    const [answer] = await Promise.all([page.waitForNavigation(), page.click('form.sign-form button[type=submit]')]);
    expect(answer!.status()).to.equal(403);
    expect(answer!.headers()['content-type']).to.match(/^text\/html/);
    expect(await page.$eval('#sign-errors', (el) => el.textContent)).to.include(BLOCKED_MESSAGE);
    expect(await page.$('[data-signed]')).to.equal(null);
    expect(await count(petition.id)).to.equal(0);
    expect((await flagsOf(petition.id)).size).to.equal(0);
  });

  it('tells a block-listed guest to check their email, as everyone is told, and mails them nothing', async () => {
    const petition = await publishedPetition(api.baseUrl, organiser, { title: 'Plant fruit trees in the park' });
    const farm = `farm-${randomUUID().slice(0, 8)}.test`;
    await blockList('email_domain', `*.${farm}`);
    // The list is in effect once a verified account at a subdomain is refused through the API.
    const probeToken = (await login(api.baseUrl, await verifiedAccount(provider.issuer, 'user', `probe@mx.${farm}`))).accessToken;
    await untilBlocked(`${ownNetwork()}.9`, petition.id, probeToken);

    const browser = await browserFrom(`${ownNetwork()}.50`);
    const guests = [
      { name: 'Fern Farmed', email: `fern@mail.${farm}` },
      { name: 'Otto Open', email: `otto-${randomUUID().slice(0, 8)}@${randomUUID().slice(0, 8)}.example` },
    ];
    for (const guest of guests) {
      const page = await (await browser.createBrowserContext()).newPage();
      await page.goto(`${PUBLIC_URL}/p/${petition.slug}`, { waitUntil: 'load' });
      await page.type('#gs-name', guest.name);
      await page.type('#gs-email', guest.email);
      await sleep(MIN_FILL_MS);
      const [answer] = await Promise.all([page.waitForNavigation(), page.click('form.gs button[type=submit]')]);
      expect(answer!.status(), guest.email).to.equal(200);
      expect(await page.$eval('h1', (h1) => h1.textContent), guest.email).to.equal('Check your email');
      await page.close();
    }
    // The open guest, who sent the form after the blocked one, is mailed; the blocked one never is.
    await mail.waitFor(guests[1]!.email, /^Confirm your signature/);
    await sleep(2_000);
    expect(mail.messages.filter((message) => message.to.includes(guests[0]!.email))).to.deep.equal([]);
    const stored = await testEnvironment().db.anyFirst(sql.type(z.object({ email: z.string() }))`
      SELECT email FROM guest_signatures WHERE petition_id = ${petition.id}`);
    expect(stored).to.deep.equal([guests[1]!.email]);
  });
});
