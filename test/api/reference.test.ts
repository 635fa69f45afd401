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
    it('renders a readable page listing the operations', async () => {
      const response = await fetch(`${api.baseUrl}/docs`);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const html = await response.text();
      expect(html).to.include('/openapi.json').and.include('/health');
      expect(html).to.include('API key scopes').and.include('read_write');
    });
  });
});
