// /docs in Chromium: Scalar, served by the API, renders the operations of /openapi.json, reaches no
// other origin than the API's, breaks no rule of its CSP, and its try-it-out sends a request to the
// running API.
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

const RALLY_ORIGIN = new URL(PUBLIC_URL).origin;

describe('/docs in Chromium', function () {
  this.timeout(240_000);
  let api: RunningApi;
  let chromium: TestBrowser;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];

  before(async () => {
    api = await startApi();
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
    page = await chromium.browser.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) problems.push(message.text());
    });
    // Scalar's bundle is several megabytes of script: on a machine loaded by the rest of the suite it
    // can take Chromium over puppeteer's default 30 s to go quiet, so the wait has a ceiling of its own.
    await page.goto(`${RALLY_ORIGIN}/docs`, { waitUntil: 'networkidle0', timeout: 100_000 });
  });
  after(async () => {
    await chromium.close();
    await api.stop();
  });

  it('renders the operations of the document', async () => {
    await page.waitForFunction("document.body.innerText.includes('Rally API')", { timeout: 30_000 });
    const text = await page.evaluate('document.body.innerText');
    // Tags and operations the spec names: petitions, signatures, webhooks.
    for (const expected of ['Petitions', 'Signatures', 'Webhooks', '/v1/petitions']) expect(text).to.include(expected);
    expect(requested).to.include(`${RALLY_ORIGIN}/openapi.json`);
  });

  it('reaches no origin but the API, and keeps its CSP', () => {
    const elsewhere = requested.filter((url) => !url.startsWith(`${RALLY_ORIGIN}/`) && !url.startsWith('data:'));
    expect(elsewhere).to.deep.equal([]);
    expect(problems).to.deep.equal([]);
  });

  it("sends a try-it-out request to the running API from an operation's Test Request", async () => {
    const answered = page.waitForResponse((response) => response.url() === `${RALLY_ORIGIN}/v1/admin/reports`, { timeout: 30_000 });
    await page.evaluate("[...document.querySelectorAll('button')].find((button) => button.innerText.includes('(get /v1/admin/reports)')).click()");
    await page.waitForFunction("[...document.querySelectorAll('button')].some((button) => /^Send/.test(button.innerText.trim()))", { timeout: 30_000 });
    await page.evaluate("[...document.querySelectorAll('button')].find((button) => /^Send/.test(button.innerText.trim())).click()");
    // Without credentials the running API refuses it with its problem: the request reached it.
    const response = await answered;
    expect(response.status()).to.equal(401);
    expect(response.headers()['content-type']).to.match(/^application\/problem\+json/);
    expect(problems).to.deep.equal([]);
  });
});
