import { expect } from 'chai';
import { startApi, type RunningApi } from '../support/processes.ts';

describe('security headers', function () {
  this.timeout(90_000);
  let api: RunningApi;

  before(async () => {
    api = await startApi();
  });
  after(() => api.stop());

  it('marks every answer nosniff with a Referrer-Policy, errors included, and no HSTS over http', async () => {
    for (const path of ['/health', '/v1/no-such-route', '/v1/users/me']) {
      const response = await fetch(`${api.baseUrl}${path}`);
      expect(response.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(response.headers.get('referrer-policy'), path).to.equal('no-referrer');
      expect(response.headers.get('strict-transport-security'), path).to.equal(null);
      // JSON answers carry no page policy, only the refusal to be framed (issue 15: the API refuses framing).
      expect(response.headers.get('content-security-policy'), path).to.equal("frame-ancestors 'none'");
    }
  });

  it('puts a Content-Security-Policy on HTML pages', async () => {
    const docs = await fetch(`${api.baseUrl}/docs`);
    expect(docs.headers.get('content-type')).to.match(/^text\/html/);
    expect(docs.headers.get('content-security-policy')).to.include("default-src 'none'");
  });

  it('sends HSTS when PUBLIC_URL is https', async () => {
    const secure = await startApi({ PUBLIC_URL: 'https://rally.test' });
    try {
      const response = await fetch(`${secure.baseUrl}/health`);
      expect(response.headers.get('strict-transport-security')).to.match(/^max-age=\d+/);
    } finally {
      await secure.stop();
    }
  });
});
