// Petitions on other sites, checked in a real Chromium: a blog on another origin embeds the widget through the oEmbed html, the widget resizes its iframe and
// keeps its count live; the page passes Lighthouse-style basics in both colour schemes; nothing a petition's author writes ever runs. Screenshots land in
// .data/test-output/embeds/ for a reviewer.
import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Frame, Page } from 'puppeteer-core';
import { launchBrowser, type TestBrowser } from '../support/browser.ts';
import { startHostSite, type HostSite } from '../support/host-site.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { lowContrastText, pageBasics } from '../support/page-checks.ts';
import { publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const OUTPUT = new URL('../../.data/test-output/embeds/', import.meta.url).pathname;
const RALLY_ORIGIN = new URL(PUBLIC_URL).origin;
// Run in the page: the Paint Timing entries, once the browser has recorded both.
const PAINT_TIMINGS = `new Promise((resolve) => {
  const read = () => {
    const entries = performance.getEntriesByType('paint');
    const first = entries.find((entry) => entry.name === 'first-paint');
    const contentful = entries.find((entry) => entry.name === 'first-contentful-paint');
    if (first && contentful) resolve({ firstPaint: first.startTime, firstContentfulPaint: contentful.startTime });
    else setTimeout(read, 10);
  };
  read();
})`;

describe('petitions on other sites, in Chromium', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let host: HostSite;
  let chromium: TestBrowser;
  let token: string;
  const errors: string[] = [];

  before(async () => {
    // Publishing runs the petition's lifecycle workflow, so a worker is needed.
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('browser-embeds') };
    [host] = await Promise.all([startHostSite(), mkdir(OUTPUT, { recursive: true })]);
    // One after the other: on a busy machine two cold starts at once can outlast the start-up limit.
    api = await startApi(env);
    worker = await startWorker(env);
    // The browser reaches Rally at its public origin, http://rally.test, served by the test API.
    chromium = await launchBrowser({ hostRules: [`MAP rally.test 127.0.0.1:${new URL(api.baseUrl).port}`] });
    token = (await login(api.baseUrl, await createTestUser({ name: 'Sam Organiser' }))).accessToken;
  });
  after(async () => {
    await chromium?.close();
    await Promise.all([api?.stop(), worker?.stop(), host?.stop()]);
  });

  async function newPage(): Promise<Page> {
    const page = await chromium.browser.newPage();
    await page.setViewport({ width: 900, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`${page.url()}: ${String(error)}`));
    return page;
  }

  async function embedded(page: Page): Promise<Frame> {
    const iframe = await page.waitForSelector('iframe[data-rally-embed]');
    const frame = (await iframe!.contentFrame())!;
    await frame.waitForSelector('[data-live="on"]', { timeout: 10_000 });
    return frame;
  }

  const oembedHtml = async (slug: string) =>
    (await json(await fetch(`${api.baseUrl}/v1/oembed?url=${encodeURIComponent(`${PUBLIC_URL}/p/${slug}`)}`))).html as string;
  const sign = async (petitionId: string) => {
    const signer = (await login(api.baseUrl, await createTestUser())).accessToken;
    const response = await fetch(`${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(signer) },
      body: '{}',
    });
    expect(response.status).to.equal(201);
  };

  it('renders the widget from the oEmbed html on another origin, follows rally:resize and updates the count within 2 s', async () => {
    const petition = await publishedPetition(api.baseUrl, token, { title: 'Light the river path at night', signatureGoal: 50 });
    const page = await newPage();
    await page.goto(host.show(await oembedHtml(petition.slug)), { waitUntil: 'load' });
    const frame = await embedded(page);
    expect(await frame.$eval('h1', (h1) => h1.textContent)).to.equal('Light the river path at night');
    expect(await frame.$eval('[data-count]', (count) => count.textContent)).to.equal('0');

    const resized = () =>
      page.evaluate(`({ messages: window.rallyResizes, iframe: document.querySelector('iframe[data-rally-embed]').style.height,
      drawn: document.querySelector('iframe[data-rally-embed]').getBoundingClientRect().height })`) as Promise<{
        messages: { origin: string; height: number }[];
        iframe: string;
        drawn: number;
      }>;
    await page.waitForFunction('window.rallyResizes.length > 0');
    const first = await resized();
    const last = first.messages.at(-1)!;
    expect(last.origin).to.equal(RALLY_ORIGIN);
    expect(last.height).to.be.above(50);
    expect(first.iframe).to.equal(`${last.height}px`);
    expect(first.drawn).to.be.closeTo(last.height, 1);

    // The widget grows: the ResizeObserver reports it, and the host's script follows.
    await frame.evaluate(`document.querySelector('main').append(Object.assign(document.createElement('div'), { className: 'grown' }))`);
    await frame.evaluate(`document.querySelector('.grown').style.height = '120px'`);
    await page.waitForFunction(`window.rallyResizes.at(-1).height > ${last.height}`);
    const grown = await resized();
    expect(grown.iframe).to.equal(`${grown.messages.at(-1)!.height}px`);

    await sign(petition.id);
    await frame.waitForFunction(`document.querySelector('[data-count]').textContent === '1'`, { timeout: 2000 });
    expect(await frame.$eval('progress', (bar) => (bar as unknown as { value: number }).value)).to.equal(1);
    await page.screenshot({ path: `${OUTPUT}widget-light.png`, fullPage: true });
    await page.close();
  });

  it('applies the dark theme colours to the widget from the embed code', async () => {
    const petition = await publishedPetition(api.baseUrl, token, { title: 'Repair the old bandstand', signatureGoal: 10 });
    const code = await json(
      await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/embed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: JSON.stringify({ theme: 'dark', show_description: true }),
      }),
    );
    const page = await newPage();
    await page.goto(host.show(code.data.html), { waitUntil: 'load' });
    const frame = await embedded(page);
    const colours = await frame.evaluate(`({ background: getComputedStyle(document.body).backgroundColor, text: getComputedStyle(document.body).color })`);
    expect(colours).to.deep.equal({ background: 'rgb(21, 21, 21)', text: 'rgb(241, 241, 241)' });
    expect(await lowContrastText(frame)).to.deep.equal([]);
    await page.waitForFunction('window.rallyResizes.length > 0');
    await page.screenshot({ path: `${OUTPUT}widget-dark.png`, fullPage: true });
    await page.close();
  });

  it('never runs script injected through the title, description, creator name or decision makers', async () => {
    const author = await createTestUser({ name: '"><script>window.rallyPwned=1</script>' });
    const authorToken = (await login(api.baseUrl, author)).accessToken;
    const petition = await publishedPetition(api.baseUrl, authorToken, {
      title: `<script>window.rallyPwned=2</script>"'><img src=x onerror="window.rallyPwned=3">`,
      description:
        `Read javascript:window.rallyPwned=4 or <a ` +
        `href="javascript:window.rallyPwned=5">this</a>.\n\n"><script>window.rallyPwned=6</script> ' ` +
        `onmouseover='window.rallyPwned=7`,
      decisionMakers: [{ name: '<img src=x onerror="window.rallyPwned=8">', title: '"><svg onload="window.rallyPwned=9">', email: 'dm@example.test' }],
    });
    const page = await newPage();
    await page.goto(`${PUBLIC_URL}/p/${petition.slug}`, { waitUntil: 'load' });
    const widget = await newPage();
    await widget.goto(`${PUBLIC_URL}/embed/p/${petition.slug}?description=1`, { waitUntil: 'load' });
    for (const target of [page, widget]) {
      // A background tab draws no frames, and hovering waits for one.
      await target.bringToFront();
      await target.hover('h1');
      const found = await target.evaluate(`({
        pwned: typeof window.rallyPwned, title: document.querySelector('h1').textContent,
        inlineScripts: document.querySelectorAll('script:not([src])').length, scriptLinks: document.querySelectorAll('a[href^="javascript:"]').length,
        injected: document.querySelectorAll('img[src$="/x"], svg, [onerror], [onload], [onmouseover]').length,
      })`);
      expect(found).to.deep.equal({ pwned: 'undefined', title: petition.title, inlineScripts: 0, scriptLinks: 0, injected: 0 });
    }
    await Promise.all([page.close(), widget.close()]);
  });

  it('passes the page checks in light and dark: no console error, lang, title, description, alt text, contrast, a keyboard-reachable sign button', async () => {
    const petition = await publishedPetition(api.baseUrl, token, {
      title: 'Save the Saturday market',
      signatureGoal: 1000,
      imageUrl: `${host.origin}/picture.png`,
      decisionMakers: [{ name: 'Councillor Reed', title: 'Chair of the markets committee', email: 'reed@example.test' }],
    });
    await sign(petition.id);
    errors.length = 0;
    const page = await newPage();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
      await page.goto(`${PUBLIC_URL}/p/${petition.slug}`, { waitUntil: 'load' });
      const basics = await pageBasics(page);
      expect(basics).to.include({ lang: 'en', title: 'Save the Saturday market · Rally', images: 1 });
      expect(basics.description).to.match(/^This petition asks/);
      expect(basics.imagesWithoutAlt).to.deep.equal([]);
      expect(await lowContrastText(page), scheme).to.deep.equal([]);
      await page.screenshot({ path: `${OUTPUT}page-${scheme}.png`, fullPage: true });
    }
    let focused = '';
    for (let presses = 0; presses < 15 && focused !== 'sign-button'; presses++) {
      await page.keyboard.press('Tab');
      focused = String(await page.evaluate('document.activeElement && document.activeElement.id'));
    }
    expect(focused).to.equal('sign-button');
    await page.close();
    expect(errors).to.deep.equal([]);
  });

  // Issue 15's budget is a first paint under 300 ms from a warm server. On a machine shared with other
  // work a browser's timings swing too far for a pass/fail here, so this test measures and records
  // the figure (first-paint.json beside the screenshots); the goal is checked by `npm run bench`
  // (scenario widget-first-paint).
  it("measures the widget's first paint from a warm server with the Performance API and records it", async () => {
    const petition = await publishedPetition(api.baseUrl, token, { title: 'Paint the widget quickly', signatureGoal: 100 });
    const url = `${PUBLIC_URL}/embed/p/${petition.slug}`;
    for (let warm = 0; warm < 3; warm += 1) expect((await fetch(`${api.baseUrl}/embed/p/${petition.slug}`)).status).to.equal(200);
    const samples: number[] = [];
    for (let load = 0; load < 5; load += 1) {
      const page = await newPage();
      await page.setCacheEnabled(false);
      await page.goto(url, { waitUntil: 'load' });
      const paint = (await page.evaluate(PAINT_TIMINGS)) as { firstPaint: number; firstContentfulPaint: number };
      samples.push(paint.firstContentfulPaint);
      expect(paint.firstPaint).to.be.greaterThan(0);
      await page.close();
    }
    const sorted = [...samples].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const record = {
      url,
      loads: samples.length,
      first_contentful_paint_ms: samples.map((ms) => Math.round(ms)),
      median_ms: Math.round(median),
      budget_ms: 300,
    };
    await writeFile(`${OUTPUT}first-paint.json`, `${JSON.stringify(record, null, 2)}\n`);
    console.log(
      `      widget first contentful paint: median ${record.median_ms} ms over ${record.loads} cold-cache loads (budget 300 ms; checked in the bench)`,
    );
    expect(errors).to.deep.equal([]);
  });

  it("keeps the widget within 15 KB, on Rally's origin only, without cookies", async () => {
    const petition = await publishedPetition(api.baseUrl, token, { title: 'Keep the ferry running', imageUrl: `${host.origin}/picture.png` });
    const page = await newPage();
    const responses: Promise<{ url: string; bytes: number; cookie: boolean }>[] = [];
    page.on('response', (response) => {
      if (!response.url().endsWith('/favicon.ico')) {
        responses.push(response.buffer().then((body) => ({ url: response.url(), bytes: body.length, cookie: 'set-cookie' in response.headers() })));
      }
    });
    await page.goto(`${PUBLIC_URL}/embed/p/${petition.slug}`, { waitUntil: 'networkidle0' });
    const loaded = await Promise.all(responses);
    expect(loaded.map((entry) => new URL(entry.url).origin)).to.satisfy((origins: string[]) => origins.every((origin) => origin === RALLY_ORIGIN));
    expect(
      loaded.reduce((total, entry) => total + entry.bytes, 0),
      'bytes before compression',
    ).to.be.at.most(15 * 1024);
    expect(loaded.some((entry) => entry.cookie)).to.equal(false);
    expect(await page.cookies()).to.deep.equal([]);
    await page.close();
  });
});
