import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser } from '../support/identity.ts';
import { registerApp, tokenRequest } from '../support/oauth.ts';
import { runRallyCli, startApi, type RunningApi } from '../support/processes.ts';

const failureOf = (args: string[]) =>
  runRallyCli(args).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );

describe('npx rally oauth-clients', function () {
  // Each CLI run is a process start; slow on a busy machine.
  this.timeout(120_000);
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.stop());

  describe('create', () => {
    it('prints the client with its secret once, and stores only a hash of the secret', async () => {
      const app = await registerApp({
        name: 'Mailer',
        redirectUris: ['https://mailer.example/cb', 'http://localhost:4000/cb'],
        scopes: 'read:petitions write:petitions',
        confidential: true,
      });
      expect(app).to.include({ name: 'Mailer' });
      expect(app.client_id).to.match(/^app_/);
      expect(app.client_secret).to.be.a('string').with.length.above(40);
      expect(app.redirect_uris).to.deep.equal(['https://mailer.example/cb', 'http://localhost:4000/cb']);
      expect(app.scopes).to.deep.equal(['read:petitions', 'write:petitions']);
      const stored = await testEnvironment().db.oneFirst(sql.type(z.object({ secret_hash: z.instanceof(Buffer) }))`
        SELECT secret_hash FROM oauth_clients WHERE client_id = ${app.client_id}
      `);
      expect(stored.equals(createHash('sha256').update(app.client_secret!).digest())).to.equal(true);
    });

    it('prints no secret for a public client', async () => {
      const app = await registerApp({ redirectUris: ['https://phone.example/cb'] });
      expect(app).to.not.have.property('client_secret');
      expect(app.scopes).to.deep.equal(['read:petitions', 'read:signatures', 'read:profile']);
    });

    it('exits 2 with a message for an unknown scope or a plain-http redirect URI', async () => {
      const scope = await failureOf(['oauth-clients', 'create', '--name', 'X', '--redirect-uri', 'https://x.example/cb', '--scopes', 'admin:everything']);
      expect(scope?.code).to.equal(2);
      expect(scope?.stderr).to.include('unknown scope');
      const insecure = await failureOf(['oauth-clients', 'create', '--name', 'X', '--redirect-uri', 'http://x.example/cb']);
      expect(insecure?.code).to.equal(2);
      expect(insecure?.stderr).to.include('https');
    });
  });

  describe('list and delete', () => {
    it('lists clients without secrets; delete forgets the client and revokes its tokens', async () => {
      const owner = await createTestUser();
      const app = await registerApp({
        name: 'Short-lived',
        redirectUris: ['https://short.example/cb'],
        scopes: 'read:profile',
        confidential: true,
        ownerEmail: owner.email,
      });
      const listed = JSON.parse((await runRallyCli(['oauth-clients', 'list'])).stdout) as { client_id: string }[];
      const entry = listed.find((client) => client.client_id === app.client_id);
      expect(entry).to.include({ name: 'Short-lived' });
      // Neither a secret nor its hash; when a rotated-out secret stops working (previous_secret_expires_at) is no secret.
      expect(JSON.stringify(listed)).to.not.include(app.client_secret!);
      for (const client of listed) expect(client).to.not.have.any.keys('client_secret', 'secret_hash', 'previous_secret_hash');

      const tokens = await json(await tokenRequest(api.baseUrl, { grant_type: 'client_credentials' }, { basic: [app.client_id, app.client_secret!] }));
      expect((await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(tokens.access_token) })).status).to.equal(200);

      await runRallyCli(['oauth-clients', 'delete', '--client-id', app.client_id]);
      let status = 200;
      for (let attempt = 0; attempt < 40 && status !== 401; attempt++) {
        status = (await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(tokens.access_token) })).status;
        if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).to.equal(401);
      const exchange = await tokenRequest(api.baseUrl, { grant_type: 'client_credentials' }, { basic: [app.client_id, app.client_secret!] });
      expect(exchange.status).to.equal(401);
      expect((await failureOf(['oauth-clients', 'delete', '--client-id', app.client_id]))?.code).to.equal(2);
    });
  });
});
