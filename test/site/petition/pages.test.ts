// The public petition page and the widget over plain HTTP: what they show, who sees them, their
// caching and their framing and content-security headers. The browser checks are in test/browser/.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { json } from '../../support/http.ts';
import { bearer, createTestUser, login } from '../../support/identity.ts';
import { createMediaClient, makePng } from '../../support/media.ts';
import { createPetition, DESCRIPTION, publishedPetition } from '../../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../../support/processes.ts';
import { uniqueTaskQueue } from '../../support/workflows.ts';

describe('petition pages', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mediaDir: string;
  let token: string;

  before(async () => {
    mediaDir = await mkdtemp(path.join(tmpdir(), 'rally-pages-'));
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('pages'), RALLY_MEDIA_DIR: mediaDir };
    // One after the other: two cold starts at once can outlast the start-up limit on a busy machine.
    api = await startApi(env);
    worker = await startWorker(env);
    token = (await login(api.baseUrl, await createTestUser({ name: 'Ada <Organiser>' }))).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await rm(mediaDir, { recursive: true, force: true });
  });

  const get = (pathname: string, headers: Record<string, string> = {}) => fetch(`${api.baseUrl}${pathname}`, { headers });
  const post = (pathname: string, body: unknown) =>
    fetch(`${api.baseUrl}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify(body) });

  describe('GET /p/{slug}', () => {
    it('renders the petition with its tally, decision makers, updates, sharing tags and a sign link', async () => {
      const petition = await publishedPetition(api.baseUrl, token, {
        title: 'Fix the "bridge" & <paths>',
        signatureGoal: 200,
        description: `${DESCRIPTION}\n\nDetails at https://example.org/plan.`,
        decisionMakers: [{ name: 'Mayor Grey', title: 'Mayor of Testville', email: 'mayor.grey@example.test' }],
      });
      expect((await post(`/v1/petitions/${petition.id}/updates`, { title: 'We met the council', body: 'They listened.' })).status).to.equal(201);
      const response = await get(`/p/${petition.slug}`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const page = await response.text();
      const pageUrl = `${PUBLIC_URL}/p/${petition.slug}`;
      expect(page).to.include('<html lang="en"');
      expect(page).to.include('<h1>Fix the &quot;bridge&quot; &amp; &lt;paths&gt;</h1>');
      expect(page).to.include('Started by Ada &lt;Organiser&gt;');
      expect(page).to.include('<a href="https://example.org/plan" rel="nofollow ugc noopener">https://example.org/plan</a>.');
      expect(page).to.match(/<progress data-progress max="200" value="0"/);
      expect(page).to.include('Mayor Grey').and.include('Mayor of Testville').and.not.include('mayor.grey@example.test');
      expect(page).to.include('We met the council');
      expect(page).to.include(`<link rel="canonical" href="${pageUrl}">`);
      expect(page).to.include(
        `<link rel="alternate" type="application/json+oembed" href="${PUBLIC_URL}/v1/oembed?url=${encodeURIComponent(pageUrl)}&amp;format=json"`,
      );
      expect(page).to.include(`<meta property="og:url" content="${pageUrl}">`);
      expect(page).to.include('<meta property="og:title" content="Fix the &quot;bridge&quot; &amp; &lt;paths&gt;">');
      expect(page).to.include('<meta name="twitter:card" content="summary">');
      expect(page).to.match(/<meta name="description" content="This petition asks/);
      expect(page).to.include(`href="${pageUrl}?source=page#sign"`);
      // A visitor is offered to log in (or sign up) and come back here to sign (issue 26).
      expect(page).to.include(`href="/login?return_to=${encodeURIComponent(`/p/${petition.slug}`)}"`);
      // Issue 26: a guest signs from the page, confirmed by email.
      expect(page).to.match(/<form class="gs" method="post" action="\/p\/[a-z0-9-]+\/sign-by-email"/);
      expect(page).to.include('your signature counts once you click it');
      expect(Buffer.byteLength(page), 'the page without its image stays within 60 KB').to.be.at.most(60 * 1024);
    });

    it('serves the processed image as WebP variants with srcset, and as the preview image', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { title: 'A petition with a picture' });
      const media = createMediaClient(api.baseUrl, token);
      const ticket = await media.requestUpload('petition_image', 'banner.png', 'image/png');
      expect((await media.put(ticket.upload_url, await makePng(1600, 1000), 'image/png')).status).to.equal(200);
      expect((await media.confirm(ticket.media_id, petition.id)).status).to.equal(200);
      expect((await media.settled(ticket.media_id)).status).to.equal('ready');
      const page = await (await get(`/p/${petition.slug}`)).text();
      const large = `${PUBLIC_URL}/v1/media/${ticket.media_id}/large.webp`;
      const small = `${PUBLIC_URL}/v1/media/${ticket.media_id}/small.webp`;
      expect(page).to.include(`srcset="${small} 400w, ${large} 1200w"`);
      expect(page).to.include('width="1200" height="750" alt="A petition with a picture"');
      expect(page).to.include(`<meta property="og:image" content="${large}">`);
      expect(page).to.include('<meta name="twitter:card" content="summary_large_image">');
    });

    it('answers a cacheable page with an ETag, and 304 to a matching If-None-Match', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      for (const pathname of [`/p/${petition.slug}`, `/embed/p/${petition.slug}`]) {
        const first = await get(pathname);
        expect(first.headers.get('cache-control')).to.equal('public, max-age=30, stale-while-revalidate=300');
        const etag = first.headers.get('etag');
        // Weak: the guest form's token differs per answer, the rest of the page does not (issue 26).
        expect(etag).to.match(/^W\/"[\w-]+"$/);
        // fetch() adds Cache-Control: no-cache to conditional requests unless told otherwise.
        const again = await get(pathname, { 'if-none-match': etag!, 'cache-control': 'max-age=0' });
        expect(again.status).to.equal(304);
        expect(await again.text()).to.equal('');
        expect((await get(pathname, { 'if-none-match': '"other"' })).status).to.equal(200);
      }
    });

    it('shows unlisted petitions by their link', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { visibility: 'unlisted', title: 'An unlisted petition' });
      expect((await get(`/p/${petition.slug}`)).status).to.equal(200);
    });

    it('answers the 404 page for drafts, private, deleted and unknown petitions', async () => {
      const draft = await createPetition(api.baseUrl, token, { title: 'Still a draft petition' });
      const hidden = await publishedPetition(api.baseUrl, token, { visibility: 'private', title: 'A private petition' });
      const deleted = await publishedPetition(api.baseUrl, token, { title: 'A deleted petition' });
      expect((await fetch(`${api.baseUrl}/v1/petitions/${deleted.id}`, { method: 'DELETE', headers: bearer(token) })).status).to.equal(204);
      for (const slug of [draft.slug, hidden.slug, deleted.slug, 'no-such-petition']) {
        for (const pathname of [`/p/${slug}`, `/embed/p/${slug}`]) {
          const response = await get(pathname);
          expect(response.status, pathname).to.equal(404);
          expect(response.headers.get('content-type')).to.match(/^text\/html/);
          expect(await response.text()).to.include('Petition not found');
        }
      }
    });
  });

  describe('a petition under review', () => {
    it('answers a notice with none of the petition on /p/{slug} and /embed/p/{slug}, and the petition again once restored', async () => {
      const admin = (await login(api.baseUrl, await createTestUser({ admin: true }))).accessToken;
      const petition = await publishedPetition(api.baseUrl, token, { title: 'A petition the moderators hold' });
      const moderate = (verb: 'review' | 'restore') =>
        fetch(`${api.baseUrl}/v1/admin/petitions/${petition.id}/${verb}`, { method: 'POST', headers: bearer(admin) });
      expect((await moderate('review')).status).to.equal(200);
      for (const pathname of [`/p/${petition.slug}`, `/embed/p/${petition.slug}?theme=dark`]) {
        const response = await get(pathname);
        expect(response.status, pathname).to.equal(200);
        expect(response.headers.get('content-type')).to.match(/^text\/html/);
        const page = await response.text();
        expect(page).to.include('under review').and.include('<meta name="robots" content="noindex">');
        expect(page).to.not.include('A petition the moderators hold').and.not.include('Sign this petition').and.not.include('library open on Sundays');
      }
      expect((await get(`/embed/p/${petition.slug}`)).headers.get('x-frame-options')).to.equal(null);
      expect((await get(`/p/${petition.slug}`)).headers.get('x-frame-options')).to.equal('DENY');
      // The JSON API keeps hiding it, and oEmbed has nothing to embed.
      expect((await get(`/v1/petitions/${petition.slug}`)).status).to.equal(404);
      expect((await get(`/v1/oembed?url=${encodeURIComponent(`${PUBLIC_URL}/p/${petition.slug}`)}`)).status).to.equal(404);

      expect((await moderate('restore')).status).to.equal(200);
      const restored = await (await get(`/p/${petition.slug}`)).text();
      expect(restored).to.include('A petition the moderators hold').and.include('Sign this petition');
    });
  });

  describe('framing and content security', () => {
    it('lets any site frame the widget, and no site frame the page or the API', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const widget = await get(`/embed/p/${petition.slug}?theme=dark`);
      expect(widget.headers.get('x-frame-options')).to.equal(null);
      expect(widget.headers.get('content-security-policy')).to.include('frame-ancestors *');
      expect(widget.headers.get('set-cookie')).to.equal(null);
      expect(await widget.text()).to.include('data-theme="dark"');
      for (const pathname of [`/p/${petition.slug}`, '/v1/petitions', '/health', '/p/no-such-petition', '/docs']) {
        const response = await get(pathname);
        expect(response.headers.get('x-frame-options'), pathname).to.equal('DENY');
        expect(response.headers.get('content-security-policy'), pathname).to.include("frame-ancestors 'none'");
      }
    });

    it('allows only same-origin scripts: no inline script and no unsafe-inline', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      for (const pathname of [`/p/${petition.slug}`, `/embed/p/${petition.slug}`]) {
        const response = await get(pathname);
        const csp = response.headers.get('content-security-policy')!;
        expect(csp).to.include("script-src 'self'").and.not.include('unsafe-inline').and.not.include('unsafe-eval');
        const scripts = [...(await response.text()).matchAll(/<script([^>]*)>/g)].map((match) => match[1]);
        // The live count on both; the widget also has the account popup's script (issue 26).
        expect(scripts).to.have.length(pathname.startsWith('/embed/') ? 2 : 1);
        for (const attributes of scripts) expect(attributes).to.match(/^ src="\/assets\/(?:live|account)\.js\?v=[\w-]+" defer$/);
      }
      for (const asset of ['/assets/live.js', '/assets/account.js']) {
        const script = await get(asset);
        expect(script.status).to.equal(200);
        expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
      }
    });
  });
});
