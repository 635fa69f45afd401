// OAuth app tokens against every route: each route an app token can reach declares its scope, a
// token reaches exactly the routes of its scopes (403 insufficient_scope with RFC 6750's challenge
// otherwise), and an app acts as a plain user whatever the user's role (issue 27, "Scopes leak").
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login } from '../support/identity.ts';
import { approveConsent, registerApp, tokenRequest, type RegisteredApp } from '../support/oauth.ts';
import { pkce, REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';
import { createPetition } from '../support/petitions.ts';

const ALL_SCOPES = 'read:petitions write:petitions read:signatures write:signatures read:profile write:profile';

type Operation = { method: string; path: string; security: unknown[]; scope?: string };

describe('OAuth app scopes on every route', function () {
  this.timeout(120_000);
  let f: OAuthFixture;
  let app: RegisteredApp;
  let operations: Operation[] = [];

  /** Tokens for `scope`, approved by the user logged in with `userToken`. */
  async function appToken(userToken: string, scope: string): Promise<string> {
    const { verifier, challenge } = pkce();
    const query = await approveConsent(f.api.baseUrl, userToken, {
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      state: 's',
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const response = await tokenRequest(
      f.api.baseUrl,
      { grant_type: 'authorization_code', code: query.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier },
      { basic: [app.client_id, app.client_secret!] },
    );
    expect(response.status).to.equal(200);
    return (await json(response)).access_token;
  }

  const call = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${f.api.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(token) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function expectInsufficientScope(response: Response, scope: string | undefined) {
    const body = await json(response);
    expect([response.status, body.code]).to.deep.equal([403, 'insufficient_scope']);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).to.match(/^Bearer error="insufficient_scope"/);
    if (scope) expect(challenge).to.include(`scope="${scope}"`);
  }

  before(async () => {
    f = await startOAuthFixture();
    app = await registerApp({ name: 'Scope Probe', redirectUris: [REDIRECT], scopes: ALL_SCOPES, confidential: true });
    const document = await json(await fetch(`${f.api.baseUrl}/openapi.json`));
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { security?: unknown[]; 'x-rally-oauth-scope'?: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations.push({ method: method.toUpperCase(), path, security: operation.security ?? [], scope: operation['x-rally-oauth-scope'] });
      }
    }
  });
  after(() => f.api.stop());

  it('declares a scope (or not_for_apps) on every route that takes credentials', () => {
    const withCredentials = operations.filter((operation) => operation.security.length > 0);
    expect(withCredentials.length).to.be.greaterThan(50);
    const undeclared = withCredentials.filter((operation) => !operation.scope).map((operation) => `${operation.method} ${operation.path}`);
    expect(undeclared).to.deep.equal([]);
    const known = [...ALL_SCOPES.split(' '), 'not_for_apps'];
    for (const operation of withCredentials) expect(known, `${operation.method} ${operation.path}`).to.include(operation.scope);
  });

  for (const scope of ['read:profile', 'read:signatures'] as const) {
    it(`lets a token with only ${scope} reach exactly the routes that declare it`, async () => {
      // The general rate limit is per user (burst 200, 100 a second), whichever app token calls: the walk
      // pauses a second every hundred calls so that the bucket refills and every answer is the scope's.
      const token = await appToken(f.userToken, scope);
      for (const [index, operation] of operations.filter((each) => each.scope).entries()) {
        if (index > 0 && index % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 1_100));
        // Placeholders: a fresh UUID for ids, a word for slugs. Validation and lookups run after the scope check.
        const path = operation.path.replace(/\{(id|[a-z_]*_id)\}/g, crypto.randomUUID()).replace(/\{[a-z_]+\}/g, 'someone');
        const response = await call(token, operation.method, path, ['GET', 'DELETE'].includes(operation.method) ? undefined : {});
        const label = `${scope} → ${operation.method} ${operation.path} (${operation.scope}): ${response.status}`;
        if (operation.scope === scope) expect((await json(response)).code, label).to.not.equal('insufficient_scope');
        else expect(response.status, label).to.equal(403);
      }
    });
  }

  it("never hands an app the administrator's role: an admin's read:petitions token does not see another user's draft", async () => {
    const author = await createTestUser();
    const draft = await createPetition(f.api.baseUrl, (await login(f.api.baseUrl, author)).accessToken);
    const admin = await createTestUser({ admin: true });
    const adminToken = (await login(f.api.baseUrl, admin)).accessToken;
    expect((await call(adminToken, 'GET', `/v1/petitions/${draft.id}`)).status).to.equal(200);
    const token = await appToken(adminToken, 'read:petitions');
    expect([403, 404]).to.include((await call(token, 'GET', `/v1/petitions/${draft.id}`)).status);
    const listed = await json(await call(token, 'GET', `/v1/petitions?status=draft`));
    expect((listed.data ?? []).map((petition: { id: string }) => petition.id)).to.not.include(draft.id);
    await expectInsufficientScope(await call(token, 'GET', '/v1/admin/users'), undefined);
  });

  it('refuses a signature export without read:signatures, naming the scope that would do', async () => {
    const readOnly = await appToken(f.userToken, 'read:petitions');
    expect((await call(readOnly, 'GET', '/v1/petitions/export?format=json')).status).to.equal(200);
    await expectInsufficientScope(await call(readOnly, 'GET', '/v1/petitions/export?format=json&includeSignatures=true'), 'read:signatures');
    const withSigners = await appToken(f.userToken, 'read:petitions read:signatures');
    expect((await call(withSigners, 'GET', '/v1/petitions/export?format=json&includeSignatures=true')).status).to.equal(200);
  });

  it('refuses an avatar or a profile change without write:profile, and organization assets to every app', async () => {
    const upload = (entityType: string) => ({ entity_type: entityType, filename: 'picture.png', content_type: 'image/png' });
    const petitionsOnly = await appToken(f.userToken, 'write:petitions');
    expect((await call(petitionsOnly, 'POST', '/v1/media/upload-url', upload('petition_image'))).status).to.equal(201);
    await expectInsufficientScope(await call(petitionsOnly, 'POST', '/v1/media/upload-url', upload('user_avatar')), 'write:profile');
    await expectInsufficientScope(await call(petitionsOnly, 'PATCH', '/v1/users/me', { avatar_url: 'https://example.test/a.png' }), 'write:profile');
    const everything = await appToken(f.userToken, ALL_SCOPES);
    expect((await call(everything, 'POST', '/v1/media/upload-url', upload('user_avatar'))).status).to.equal(201);
    await expectInsufficientScope(await call(everything, 'POST', '/v1/media/upload-url', upload('org_logo')), undefined);
    await expectInsufficientScope(await call(everything, 'POST', '/v1/organizations', { name: 'Friends of the Library' }), undefined);
  });
});
