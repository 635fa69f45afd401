import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { jwtVerify, createRemoteJWKSet } from 'jose';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { requestFrom } from '../support/bound-client.ts';
import { createPetitionRow } from '../support/events.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { PRODUCTION_SECRETS } from '../support/production-secrets.ts';
import { PUBLIC_URL, runRallyCli, startApi, type RunningApi } from '../support/processes.ts';

const rally = runRallyCli;

describe('npx rally', function () {
  this.timeout(60_000);
  let api: RunningApi;
  before(async () => {
    api = await startApi();
  });
  after(() => api.stop());

  describe('users create', () => {
    it('creates a user who can log in, and prints it as JSON', async () => {
      const email = `cli-${randomUUID().slice(0, 8)}@example.test`;
      const { stdout } = await rally(['users', 'create', '--email', email, '--password', 'correct horse battery', '--name', 'Grace Hopper', '--admin']);
      const printed = JSON.parse(stdout);
      expect(printed).to.include({ email, display_name: 'Grace Hopper', role: 'admin' });
      const session = await login(api.baseUrl, { email, password: 'correct horse battery' });
      const me = await json(await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) }));
      expect(me.data.id).to.equal(printed.id);
    });

    it('gives a second user with the same display name another slug', async () => {
      const name = `Same Name ${randomUUID().slice(0, 6)}`;
      const create = async () =>
        JSON.parse(
          (await rally(['users', 'create', '--email', `cli-${randomUUID().slice(0, 8)}@example.test`, '--password', 'long enough password', '--name', name]))
            .stdout,
        );
      const [first, second] = [await create(), await create()];
      expect(second.slug).to.be.a('string').and.not.equal(first.slug);
    });

    it('exits non-zero with a message for a duplicate email', async () => {
      const email = `cli-${randomUUID().slice(0, 8)}@example.test`;
      await rally(['users', 'create', '--email', email, '--password', 'long enough password']);
      const failure = await rally(['users', 'create', '--email', email, '--password', 'long enough password']).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).to.equal(2);
      expect(failure?.stderr).to.include('already exists');
    });
  });

  describe('loadtest users', () => {
    it('prints one line per user with an access token the API accepts', async () => {
      const { stdout } = await rally(['loadtest', 'users', '--count', '3']);
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).to.have.length(3);
      const jwks = createRemoteJWKSet(new URL(`http://127.0.0.1:${testEnvironment().identityProviderPort}/jwks`));
      await jwtVerify(lines[0].access_token, jwks, { audience: PUBLIC_URL });
      const me = await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(lines[0].access_token) });
      expect((await json(me)).data).to.include({ id: lines[0].id, email_verified: true });
    });

    it('makes users who may sign (their addresses count as verified), as the signing bench needs', async () => {
      const { stdout } = await rally(['loadtest', 'users', '--count', '1']);
      const { access_token: token } = JSON.parse(stdout.trim());
      const petitionId = await createPetitionRow((await createTestUser()).id, 'A petition signed by a load test user');
      // From an address of its own, so that no other test's signatures from 127.0.0.1 count here.
      const address = `127.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 256)}.8`;
      const signed = await requestFrom(address, `${api.baseUrl}/v1/petitions/${petitionId}/signatures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(token) },
        body: '{}',
      });
      expect(signed.status, signed.body).to.equal(201);
    });

    it('is refused when NODE_ENV=production', async () => {
      const failure = await rally(['loadtest', 'users', '--count', '1'], { ...PRODUCTION_SECRETS, OIDC_CLIENT_SECRET: 'a-real-secret' }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.stderr).to.include('refused');
    });
  });
});
