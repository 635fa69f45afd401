// The committed OpenAPI document and the SDK types generated from it are what `npm run openapi`
// builds now (so a route change without regenerating them fails here), and the document a running
// API serves is that same document, but for the server it names (its own PUBLIC_URL).
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { openApiArtifacts } from '../../scripts/lib/openapi-artifacts.ts';
import { json } from '../support/http.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

const ROOT = new URL('../../', import.meta.url);

describe('the committed OpenAPI document (npm run openapi)', function () {
  this.timeout(120_000);

  it('and the SDK types generated from it are current', async () => {
    for (const artifact of await openApiArtifacts()) {
      const committed = await readFile(new URL(artifact.path, ROOT), 'utf8').catch(() => '');
      expect(committed === artifact.text, `${artifact.path} is stale: run npm run openapi`).to.equal(true);
    }
  });

  describe('served by a running API', () => {
    let api: RunningApi;
    before(async () => {
      api = await startApi();
    });
    after(() => api.stop());

    it('is the committed document with the installation as its server', async () => {
      const served = await json(await fetch(`${api.baseUrl}/openapi.json`));
      const committed = await readFile(new URL('openapi.json', ROOT), 'utf8');
      expect(served.servers).to.deep.equal([{ url: PUBLIC_URL, description: 'This Rally installation' }]);
      // The committed document is written for npm start's default address; the API puts in its own.
      const expected = JSON.parse(committed.replaceAll('http://localhost:3000', PUBLIC_URL)) as Record<string, unknown>;
      expect({ ...served, servers: [] }).to.deep.equal({ ...expected, servers: [] });
      expect(served.components.securitySchemes.oauth2.flows.authorizationCode.tokenUrl).to.equal(`${PUBLIC_URL}/oauth/token`);
    });
  });
});
