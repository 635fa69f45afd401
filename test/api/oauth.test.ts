import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { DESCRIPTION } from '../support/petitions.ts';
import { approveConsent, authorize, consentTicketOf, decide, registerApp, tokenRequest, type RegisteredApp } from '../support/oauth.ts';
import { PUBLIC_URL, startApi, type RunningApi } from '../support/processes.ts';

const REDIRECT = 'http://127.0.0.1:8766/callback';
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

describe('OAuth 2.0 authorization server', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let user: TestUser;
  let userToken: string;
  let app: RegisteredApp;
  let publicApp: RegisteredApp;

  before(async () => {
    api = await startApi();
    user = await createTestUser();
    userToken = (await login(api.baseUrl, user)).accessToken;
    [app, publicApp] = await Promise.all([
      registerApp({ redirectUris: [REDIRECT], scopes: 'read:profile write:petitions read:petitions', confidential: true, ownerEmail: user.email }),
      registerApp({ name: 'Phone App', redirectUris: [REDIRECT], scopes: 'read:profile' }),
    ]);
  });
  after(() => api.stop());

  const basic = (): [string, string] => [app.client_id, app.client_secret!];
  const me = (token: string) => fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(token) });
  const request = (overrides: Record<string, string> = {}) => {
    const { verifier, challenge } = pkce();
    return { verifier, params: { client_id: app.client_id, redirect_uri: REDIRECT, response_type: 'code', state: 'st-1', scope: 'read:profile', code_challenge: challenge, code_challenge_method: 'S256', ...overrides } };
  };
  async function codeFor(overrides: Record<string, string> = {}) {
    const { verifier, params } = request(overrides);
    const query = await approveConsent(api.baseUrl, userToken, params);
    return { code: query.get('code')!, verifier, state: query.get('state') };
  }
  async function tokensFor(scope = 'read:profile') {
    const { code, verifier } = await codeFor({ scope });
    const response = await tokenRequest(api.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, { basic: basic() });
    expect(response.status).to.equal(200);
    return json(response);
  }
  /** Revocation reaches every API process by NOTIFY: give it a moment. */
  async function expectRejected(token: string) {
    for (let attempt = 0; attempt < 40; attempt++) {
      if ((await me(token)).status === 401) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect.fail('the token still works');
  }

  describe('GET /.well-known/oauth-authorization-server', () => {
    it('describes the endpoints, grants, S256 and scopes (RFC 8414)', async () => {
      const metadata = await json(await fetch(`${api.baseUrl}/.well-known/oauth-authorization-server`));
      expect(metadata).to.include({ issuer: PUBLIC_URL, authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`, token_endpoint: `${PUBLIC_URL}/oauth/token` });
      expect(metadata.code_challenge_methods_supported).to.deep.equal(['S256']);
      expect(metadata.response_types_supported).to.deep.equal(['code']);
      expect(metadata.grant_types_supported).to.have.members(['authorization_code', 'refresh_token', 'client_credentials']);
      expect(metadata.scopes_supported).to.include.members(['read:petitions', 'write:petitions', 'read:signatures', 'write:signatures', 'read:profile', 'write:profile']);
    });
  });

  describe('GET /oauth/authorize', () => {
    it('answers 401 without a bearer token', async () => {
      expect((await authorize(api.baseUrl, undefined, request().params)).status).to.equal(401);
    });

    it('shows an escaped consent screen with a CSP that forbids framing', async () => {
      const evil = await registerApp({ name: '<script>alert(1)</script>', redirectUris: [REDIRECT], confidential: true });
      const response = await authorize(api.baseUrl, userToken, request({ client_id: evil.client_id }).params);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.include('text/html');
      expect(response.headers.get('content-security-policy')).to.include("frame-ancestors 'none'").and.include("default-src 'none'");
      const html = await response.text();
      expect(html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;').and.not.include('<script>');
      expect(html).to.match(/<form method="post"/);
    });

    it('answers a 400 page, never a redirect, for an unknown client', async () => {
      const response = await authorize(api.baseUrl, userToken, request({ client_id: 'app_unknown' }).params);
      expect(response.status).to.equal(400);
      expect(response.headers.get('location')).to.equal(null);
    });

    for (const [label, uri] of [
      ['a longer path (prefix match)', `${REDIRECT}/evil`],
      ['an added query', `${REDIRECT}?next=evil`],
      ['a different port', 'http://127.0.0.1:8767/callback'],
      ['a path prefix of it', 'http://127.0.0.1:8766/call'],
    ]) {
      it(`answers a 400 page, never a redirect, for a redirect_uri with ${label}`, async () => {
        const response = await authorize(api.baseUrl, userToken, request({ redirect_uri: uri! }).params);
        expect(response.status).to.equal(400);
        expect(response.headers.get('location')).to.equal(null);
        expect(await response.text()).to.include('not registered');
      });
    }

    it('refuses response_type=token with unsupported_response_type and the state', async () => {
      const response = await authorize(api.baseUrl, userToken, request({ response_type: 'token' }).params);
      expect(response.status).to.equal(302);
      const query = new URL(response.headers.get('location')!).searchParams;
      expect(query.get('error')).to.equal('unsupported_response_type');
      expect(query.get('state')).to.equal('st-1');
    });

    it('refuses a missing state with invalid_request', async () => {
      const { params } = request();
      const { state: _omitted, ...withoutState } = params;
      const response = await authorize(api.baseUrl, userToken, withoutState);
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('refuses a scope beyond what the app registered (invalid_scope)', async () => {
      const response = await authorize(api.baseUrl, userToken, request({ scope: 'read:profile write:signatures' }).params);
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).to.equal('invalid_scope');
    });

    it('requires PKCE S256 from public clients', async () => {
      const { params } = request({ client_id: publicApp.client_id });
      const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = params;
      const missing = await authorize(api.baseUrl, userToken, withoutPkce);
      expect(new URL(missing.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
      const plain = await authorize(api.baseUrl, userToken, { ...params, code_challenge_method: 'plain' });
      expect(new URL(plain.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('skips the consent screen when the user already granted the same scopes', async () => {
      await codeFor({ scope: 'read:petitions' });
      const response = await authorize(api.baseUrl, userToken, request({ scope: 'read:petitions' }).params);
      expect(response.status).to.equal(302);
      expect(new URL(response.headers.get('location')!).searchParams.get('code')).to.be.a('string');
    });
  });

  describe('POST /oauth/authorize', () => {
    it('redirects with error=access_denied and the state when the user denies', async () => {
      const page = await authorize(api.baseUrl, userToken, request({ state: 'deny-me' }).params);
      const response = await decide(api.baseUrl, consentTicketOf(await page.text()), 'deny');
      const query = new URL(response.headers.get('location')!).searchParams;
      expect(query.get('error')).to.equal('access_denied');
      expect(query.get('state')).to.equal('deny-me');
    });

    it('answers 400 without a consent ticket, with a forged one, and for a reused one (CSRF)', async () => {
      expect((await decide(api.baseUrl, undefined, 'approve')).status).to.equal(400);
      const page = await authorize(api.baseUrl, userToken, request().params);
      const ticket = consentTicketOf(await page.text());
      const [header, payload, signature] = ticket.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'write:petitions' })).toString('base64url')}.${signature}`;
      const forgedAnswer = await decide(api.baseUrl, forged, 'approve');
      expect(forgedAnswer.status).to.equal(400);
      expect(forgedAnswer.headers.get('location')).to.equal(null);
      expect((await decide(api.baseUrl, ticket, 'approve')).status).to.equal(302);
      expect((await decide(api.baseUrl, ticket, 'approve')).status).to.equal(400);
    });
  });

  describe('POST /oauth/token', () => {
    it('exchanges a code once; a second use is invalid_grant and revokes the tokens of the first', async () => {
      const { code, verifier } = await codeFor();
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      const first = await tokenRequest(api.baseUrl, exchange, { basic: basic() });
      expect(first.status).to.equal(200);
      expect(first.headers.get('cache-control')).to.equal('no-store');
      const tokens = await json(first);
      expect(tokens).to.include({ token_type: 'Bearer', scope: 'read:profile' });
      expect(tokens.expires_in).to.be.a('number');
      expect((await me(tokens.access_token)).status).to.equal(200);
      const second = await tokenRequest(api.baseUrl, exchange, { basic: basic() });
      expect(second.status).to.equal(400);
      expect((await json(second)).error).to.equal('invalid_grant');
      await expectRejected(tokens.access_token);
      const refreshed = await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: basic() });
      expect((await json(refreshed)).error).to.equal('invalid_grant');
    });

    it('accepts a JSON body with client_secret_post', async () => {
      const { code, verifier } = await codeFor();
      const response = await tokenRequest(api.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: app.client_id, client_secret: app.client_secret! }, { json: true });
      expect(response.status).to.equal(200);
      expect((await json(response)).refresh_token).to.be.a('string');
    });

    it('refuses a redirect_uri different from the authorization request (invalid_grant)', async () => {
      const { code, verifier } = await codeFor();
      const response = await tokenRequest(api.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: `${REDIRECT}/other`, code_verifier: verifier }, { basic: basic() });
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('invalid_grant');
    });

    it('refuses a missing or wrong PKCE verifier (invalid_grant)', async () => {
      const { code } = await codeFor();
      const missing = await tokenRequest(api.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { basic: basic() });
      expect(missing.status).to.equal(400);
      expect((await json(missing)).error).to.equal('invalid_grant');
      const wrong = await tokenRequest(api.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pkce().verifier }, { basic: basic() });
      expect((await json(wrong)).error).to.equal('invalid_grant');
    });

    it('answers 401 invalid_client for a wrong secret, by Basic and by post', async () => {
      const { code, verifier } = await codeFor();
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      const byBasic = await tokenRequest(api.baseUrl, exchange, { basic: [app.client_id, 'rcs_wrong'] });
      expect(byBasic.status).to.equal(401);
      expect((await json(byBasic)).error).to.equal('invalid_client');
      const byPost = await tokenRequest(api.baseUrl, { ...exchange, client_id: app.client_id, client_secret: 'rcs_wrong' });
      expect(byPost.status).to.equal(401);
    });

    it('answers unsupported_grant_type for password and other grants', async () => {
      const response = await tokenRequest(api.baseUrl, { grant_type: 'password', username: 'a', password: 'b' }, { basic: basic() });
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('unsupported_grant_type');
    });

    it('rotates refresh tokens; replaying a used one revokes the whole family', async () => {
      const tokens = await tokensFor();
      const rotated = await json(await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: basic() }));
      expect(rotated.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
      const replay = await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: basic() });
      expect(replay.status).to.equal(400);
      expect((await json(replay)).error).to.equal('invalid_grant');
      const afterReplay = await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token }, { basic: basic() });
      expect((await json(afterReplay)).error).to.equal('invalid_grant');
      await expectRejected(rotated.access_token);
    });

    it('refuses to widen the scope on refresh (invalid_scope)', async () => {
      const tokens = await tokensFor();
      const response = await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'read:profile write:petitions' }, { basic: basic() });
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('invalid_scope');
    });

    it('answers 401 token_expired for an expired refresh token', async () => {
      const tokens = await tokensFor();
      const hash = createHash('sha256').update(tokens.refresh_token).digest();
      await testEnvironment().db.query(sql.typeAlias('void')`UPDATE oauth_refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${sql.binary(hash)}`);
      const response = await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: basic() });
      expect(response.status).to.equal(401);
      expect((await json(response)).error).to.equal('token_expired');
    });

    it('gives a confidential client with an owner a token acting for the owner (client_credentials)', async () => {
      const response = await tokenRequest(api.baseUrl, { grant_type: 'client_credentials', scope: 'read:profile' }, { basic: basic() });
      expect(response.status).to.equal(200);
      const tokens = await json(response);
      expect(tokens.refresh_token).to.equal(undefined);
      expect((await json(await me(tokens.access_token))).data.id).to.equal(user.id);
    });

    it('refuses client_credentials to a public client (unauthorized_client)', async () => {
      const response = await tokenRequest(api.baseUrl, { grant_type: 'client_credentials', client_id: publicApp.client_id });
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('unauthorized_client');
    });
  });

  describe('app tokens on the API', () => {
    it('answers 403 insufficient_scope creating a petition with only read:profile', async () => {
      const tokens = await tokensFor('read:profile');
      const response = await fetch(`${api.baseUrl}/v1/petitions`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...bearer(tokens.access_token) },
        body: JSON.stringify({ title: 'Keep the library open on Sundays', description: DESCRIPTION }),
      });
      expect(response.status).to.equal(403);
      expect((await json(response)).code).to.equal('insufficient_scope');
    });

    it('records triggered_by oauth_app with the client id for what the app does', async () => {
      const tokens = await tokensFor('write:petitions');
      const response = await fetch(`${api.baseUrl}/v1/petitions`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...bearer(tokens.access_token) },
        body: JSON.stringify({ title: 'Keep the library open on Sundays', description: DESCRIPTION }),
      });
      expect(response.status).to.equal(201);
      const petition = (await json(response)).data;
      const actor = await testEnvironment().db.one(sql.type(z.object({ actor_type: z.string(), actor_id: z.string().nullable() }))`
        SELECT actor_type, actor_id FROM events WHERE petition_id = ${petition.id} AND type = 'petition.created'
      `);
      expect(actor).to.deep.equal({ actor_type: 'oauth_app', actor_id: app.client_id });
    });

    it('cannot reach routes outside its scopes: API keys, nor authorize another app', async () => {
      const tokens = await tokensFor('read:profile write:petitions');
      expect((await fetch(`${api.baseUrl}/v1/api-keys`, { headers: bearer(tokens.access_token) })).status).to.equal(403);
      expect((await authorize(api.baseUrl, tokens.access_token, request().params)).status).to.equal(403);
    });
  });

  describe('/v1/users/me/authorizations', () => {
    it('lists the apps the user authorized, and DELETE revokes every token of the grant at once', async () => {
      const [a, b] = [await tokensFor(), await tokensFor()];
      const list = await json(await fetch(`${api.baseUrl}/v1/users/me/authorizations`, { headers: bearer(userToken) }));
      const entry = list.data.find((row: { client_id: string }) => row.client_id === app.client_id);
      expect(entry).to.include({ name: 'Campaign Tool' });
      expect(entry.scopes).to.include('read:profile');
      const deleted = await fetch(`${api.baseUrl}/v1/users/me/authorizations/${app.client_id}`, { method: 'DELETE', headers: bearer(userToken) });
      expect(deleted.status).to.equal(204);
      await expectRejected(a.access_token);
      await expectRejected(b.access_token);
      const refreshed = await tokenRequest(api.baseUrl, { grant_type: 'refresh_token', refresh_token: b.refresh_token }, { basic: basic() });
      expect((await json(refreshed)).error).to.equal('invalid_grant');
      const again = await fetch(`${api.baseUrl}/v1/users/me/authorizations/${app.client_id}`, { method: 'DELETE', headers: bearer(userToken) });
      expect(again.status).to.equal(404);
    });
  });
});
