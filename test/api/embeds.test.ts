// oEmbed and embed codes over HTTP. What the snippet does in a browser is in test/browser/.
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { createPetition, publishedPetition } from '../support/petitions.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

describe('embeds', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let token: string;
  let strangerToken: string;

  before(async () => {
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('embeds') };
    // One after the other: two cold starts at once can outlast the start-up limit on a busy machine.
    api = await startApi(env);
    worker = await startWorker(env);
    token = (await login(api.baseUrl, await createTestUser())).accessToken;
    strangerToken = (await login(api.baseUrl, await createTestUser())).accessToken;
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
  });

  const oembed = (query: Record<string, string>) => fetch(`${api.baseUrl}/v1/oembed?${new URLSearchParams(query)}`);

  describe('GET /v1/oembed', () => {
    it('answers a rich oEmbed with an iframe of the widget and the resize script', async () => {
      const petition = await publishedPetition(api.baseUrl, token, { title: 'Plant trees on "Elm" <street>' });
      const response = await oembed({ url: `${PUBLIC_URL}/p/${petition.slug}?ref=someone` });
      expect(response.status).to.equal(200);
      const body = await json(response);
      expect(body).to.include({
        type: 'rich',
        version: '1.0',
        title: 'Plant trees on "Elm" <street>',
        provider_name: 'Rally',
        provider_url: PUBLIC_URL,
        width: 400,
        height: 240,
      });
      expect(body.cache_age).to.be.a('number');
      expect(body.html).to.include(`src="${PUBLIC_URL}/embed/p/${petition.slug}"`);
      expect(body.html).to.include('title="Petition: Plant trees on &quot;Elm&quot; &lt;street&gt;"');
      expect(body.html).to.include('width="400" height="240"');
      expect(body.html).to.include(`var o="${PUBLIC_URL}"`);
      expect(body).not.to.have.property('thumbnail_url');
    });

    it('keeps the iframe within maxwidth and maxheight', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const body = await json(await oembed({ url: `${PUBLIC_URL}/p/${petition.slug}`, maxwidth: '300', maxheight: '150', format: 'json' }));
      expect(body).to.include({ width: 300, height: 150 });
      expect(body.html).to.include('width="300" height="150"');
    });

    it('answers 400 to a missing url, another site, another path or a bad maxwidth', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const queries: Record<string, string>[] = [
        {},
        { url: `https://elsewhere.example/p/${petition.slug}` },
        { url: `${PUBLIC_URL}/v1/petitions/${petition.slug}` },
        { url: 'not a url' },
        { url: `${PUBLIC_URL}/p/${petition.slug}`, maxwidth: '-3' },
        { url: `${PUBLIC_URL}/p/${petition.slug}`, format: 'yaml' },
      ];
      for (const query of queries) {
        const response = await oembed(query);
        expect(response.status, JSON.stringify(query)).to.equal(400);
        expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      }
    });

    it('answers 404 to unknown, draft and private petitions, and 501 to format=xml', async () => {
      const draft = await createPetition(api.baseUrl, token);
      const hidden = await publishedPetition(api.baseUrl, token, { visibility: 'private' });
      for (const slug of ['no-such-petition', draft.slug, hidden.slug]) {
        expect((await oembed({ url: `${PUBLIC_URL}/p/${slug}` })).status, slug).to.equal(404);
      }
      const published = await publishedPetition(api.baseUrl, token);
      expect((await oembed({ url: `${PUBLIC_URL}/p/${published.slug}`, format: 'xml' })).status).to.equal(501);
    });
  });

  describe('POST /v1/petitions/{id}/embed', () => {
    const embed = (id: string, body: unknown, credential = token) =>
      fetch(`${api.baseUrl}/v1/petitions/${id}/embed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(credential) },
        body: JSON.stringify(body),
      });

    it('gives the creator an iframe, its URL, the oEmbed URL and a host script under 1 KB', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      const response = await embed(petition.id, { theme: 'dark', width: 500, height: 300, show_description: true });
      expect(response.status).to.equal(200);
      const { data } = await json(response);
      expect(data.iframe_url).to.equal(`${PUBLIC_URL}/embed/p/${petition.slug}?theme=dark&description=1`);
      expect(data.oembed_url).to.equal(`${PUBLIC_URL}/v1/oembed?url=${encodeURIComponent(`${PUBLIC_URL}/p/${petition.slug}`)}&format=json`);
      expect(data.html).to.include(`src="${PUBLIC_URL}/embed/p/${petition.slug}?theme=dark&amp;description=1"`).and.include('width="500" height="300"');
      expect(data.html).to.include(data.script);
      expect(data.script).to.match(/^<script>[\s\S]*<\/script>$/);
      expect(data.script).to.include(`e.origin!==o`).and.include('rally:resize');
      expect(Buffer.byteLength(data.script)).to.be.below(1024);
    });

    it('answers 403 to someone else, 409 for a private petition and 422 to a bad theme', async () => {
      const petition = await publishedPetition(api.baseUrl, token);
      expect((await embed(petition.id, {}, strangerToken)).status).to.equal(403);
      const hidden = await publishedPetition(api.baseUrl, token, { visibility: 'private' });
      expect((await embed(hidden.id, {})).status).to.equal(409);
      expect((await embed(petition.id, { theme: 'neon' })).status).to.equal(422);
      expect((await fetch(`${api.baseUrl}/v1/petitions/${petition.id}/embed`, { method: 'POST' })).status).to.equal(401);
    });
  });
});
