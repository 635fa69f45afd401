import { json } from '../support/http.ts';
import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('API reference', function () {
  this.timeout(60_000);
  let api: RunningApi;

  before(async () => {
    api = await startApi();
  });
  after(async () => {
    await api.stop();
  });

  describe('GET /openapi.json', () => {
    it('is a valid OpenAPI 3.1 document', async () => {
      const response = await fetch(`${api.baseUrl}/openapi.json`);
      expect(response.status).to.equal(200);
      const document = await json(response);
      expect(document.openapi).to.equal('3.1.0');
      const result = await new Validator().validate(document);
      expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
      expect(result.valid).to.equal(true);
    });

    it('describes the health route', async () => {
      const document = await json(await fetch(`${api.baseUrl}/openapi.json`));
      expect(document.paths['/health'].get.operationId).to.equal('getHealth');
    });
  });

  describe('GET /docs', () => {
    it('is a page that loads the renderer from this API, never a CDN, under a CSP that allows no inline script', async () => {
      const response = await fetch(`${api.baseUrl}/docs`);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("script-src 'self';").and.include("frame-ancestors 'none'").and.not.include('unsafe-eval');
      const html = await response.text();
      expect(html).to.include('/openapi.json').and.include('src="/docs/assets/scalar.js"');
      expect(html).to.not.match(/<script>|https?:\/\/(?!rally\.test)[a-z]/);
      const bundle = await fetch(`${api.baseUrl}/docs/assets/scalar.js`);
      expect(bundle.status).to.equal(200);
      expect(bundle.headers.get('content-type')).to.match(/^text\/javascript/);
      expect((await bundle.arrayBuffer()).byteLength).to.be.above(100_000);
    });
  });
});
