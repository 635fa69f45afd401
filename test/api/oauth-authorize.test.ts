import { expect } from 'chai';
import { json } from '../support/http.ts';
import { authorize, browserCookiesOf, consentFormActionOf, decide, registerApp } from '../support/oauth.ts';
import { REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';
import { PUBLIC_URL } from '../support/processes.ts';

describe('OAuth 2.0 authorization (metadata, consent)', function () {
  this.timeout(60_000);
  let f: OAuthFixture;
  before(async () => {
    f = await startOAuthFixture();
  });
  after(() => f.api.stop());

  describe('GET /.well-known/oauth-authorization-server', () => {
    it('describes the endpoints, grants, S256 and scopes (RFC 8414)', async () => {
      const metadata = await json(await fetch(`${f.api.baseUrl}/.well-known/oauth-authorization-server`));
      expect(metadata).to.include({ issuer: PUBLIC_URL, authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`, token_endpoint: `${PUBLIC_URL}/oauth/token` });
      expect(metadata.code_challenge_methods_supported).to.deep.equal(['S256']);
      expect(metadata.response_types_supported).to.deep.equal(['code']);
      expect(metadata.grant_types_supported).to.have.members(['authorization_code', 'refresh_token', 'client_credentials']);
      expect(metadata.scopes_supported).to.include.members([
        'read:petitions',
        'write:petitions',
        'read:signatures',
        'write:signatures',
        'read:profile',
        'write:profile',
      ]);
    });
  });

  describe('GET /oauth/authorize', () => {
    it('answers 401 without a bearer token', async () => {
      expect((await authorize(f.api.baseUrl, undefined, f.request().params)).status).to.equal(401);
    });

    it('sends a browser without a bearer token to /login, to come back to the same request', async () => {
      const { params } = f.request();
      const response = await fetch(`${f.api.baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, {
        headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
        redirect: 'manual',
      });
      expect(response.status).to.equal(302);
      const location = new URL(response.headers.get('location')!, f.api.baseUrl);
      expect(location.pathname).to.equal('/login');
      const back = new URL(location.searchParams.get('return_to')!, f.api.baseUrl);
      expect(back.pathname).to.equal('/oauth/authorize');
      expect(Object.fromEntries(back.searchParams)).to.deep.equal(params);
    });

    it('shows an escaped consent screen with a CSP that forbids framing', async () => {
      const evil = await registerApp({ name: '<script>alert(1)</script>', redirectUris: [REDIRECT], confidential: true });
      const response = await authorize(f.api.baseUrl, f.userToken, f.request({ client_id: evil.client_id }).params);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.include('text/html');
      expect(response.headers.get('content-security-policy')).to.include("frame-ancestors 'none'").and.include("default-src 'none'");
      const html = await response.text();
      expect(html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;').and.not.include('<script>alert');
      // The one script is Rally's own (it arms Approve), allowed by its hash alone.
      expect(html.match(/<script>/g)).to.have.length(1);
      expect(response.headers.get('content-security-policy')).to.match(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
      expect(html).to.match(/<form method="post"/);
    });

    it('answers a 400 page, never a redirect, for an unknown client', async () => {
      const response = await authorize(f.api.baseUrl, f.userToken, f.request({ client_id: 'app_unknown' }).params);
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
        const response = await authorize(f.api.baseUrl, f.userToken, f.request({ redirect_uri: uri! }).params);
        expect(response.status).to.equal(400);
        expect(response.headers.get('location')).to.equal(null);
        expect(await response.text()).to.include('not registered');
      });
    }

    it('refuses response_type=token with unsupported_response_type and the state, in the fragment (RFC 6749 4.2.2.1)', async () => {
      const response = await authorize(f.api.baseUrl, f.userToken, f.request({ response_type: 'token' }).params);
      expect(response.status).to.equal(302);
      const query = new URLSearchParams(new URL(response.headers.get('location')!).hash.slice(1));
      expect(query.get('error')).to.equal('unsupported_response_type');
      expect(query.get('state')).to.equal('st-1');
    });

    it('refuses a missing state with invalid_request', async () => {
      const { params } = f.request();
      const { state: _omitted, ...withoutState } = params;
      const response = await authorize(f.api.baseUrl, f.userToken, withoutState);
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    it('refuses a scope beyond what the app registered (invalid_scope)', async () => {
      const response = await authorize(f.api.baseUrl, f.userToken, f.request({ scope: 'read:profile write:signatures' }).params);
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).to.equal('invalid_scope');
    });

    for (const kind of ['public', 'confidential'] as const) {
      it(`requires PKCE S256 from ${kind} clients (RFC 9700 2.1.1)`, async () => {
        const { params } = f.request({ client_id: kind === 'public' ? f.publicApp.client_id : f.app.client_id });
        const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = params;
        const missing = await authorize(f.api.baseUrl, f.userToken, withoutPkce);
        expect(missing.status).to.equal(302);
        const query = new URL(missing.headers.get('location')!).searchParams;
        expect([query.get('error'), query.get('iss')]).to.deep.equal(['invalid_request', PUBLIC_URL]);
        const plain = await authorize(f.api.baseUrl, f.userToken, { ...params, code_challenge_method: 'plain' });
        expect(new URL(plain.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
      });
    }

    it('skips the consent screen when the user already granted the same scopes', async () => {
      await f.codeFor({ scope: 'read:petitions' });
      const response = await authorize(f.api.baseUrl, f.userToken, f.request({ scope: 'read:petitions' }).params);
      expect(response.status).to.equal(302);
      const query = new URL(response.headers.get('location')!).searchParams;
      expect(query.get('code')).to.be.a('string');
      expect(query.get('iss')).to.equal(PUBLIC_URL);
    });
  });

  describe('POST /oauth/authorize', () => {
    it('redirects with error=access_denied and the state when the user denies', async () => {
      const page = await authorize(f.api.baseUrl, f.userToken, f.request({ state: 'deny-me' }).params);
      const response = await decide(f.api.baseUrl, consentFormActionOf(await page.text()), 'deny', { cookie: browserCookiesOf(page), token: f.userToken });
      const query = new URL(response.headers.get('location')!).searchParams;
      expect(query.get('error')).to.equal('access_denied');
      expect(query.get('iss')).to.equal(PUBLIC_URL);
      expect(query.get('state')).to.equal('deny-me');
    });

    it('answers 400 without the screen, for an interaction this browser was not shown, and for a used one (CSRF)', async () => {
      expect((await decide(f.api.baseUrl, undefined, 'approve')).status).to.equal(400);
      const page = await authorize(f.api.baseUrl, f.userToken, f.request().params);
      const as = { cookie: browserCookiesOf(page), token: f.userToken };
      const action = consentFormActionOf(await page.text());
      const forgedAnswer = await decide(f.api.baseUrl, `/oauth/interaction/${'A'.repeat(43)}`, 'approve', as);
      expect(forgedAnswer.status).to.equal(400);
      expect(forgedAnswer.headers.get('location')).to.equal(null);
      expect((await decide(f.api.baseUrl, action, 'approve', as)).status).to.equal(302);
      expect((await decide(f.api.baseUrl, action, 'approve', as)).status).to.equal(400);
    });

    it('binds the screen to the browser with a cookie no script can read and no other site can send with a form', async () => {
      const page = await authorize(f.api.baseUrl, f.userToken, f.request({ scope: 'read:petitions write:petitions' }).params);
      const action = consentFormActionOf(await page.text());
      const binding = page.headers.getSetCookie().filter((cookie) => cookie.startsWith('rally_oauth_interaction='));
      expect(binding).to.have.length(1);
      // Path=/, as the __Host- prefix it takes over https needs (issue 42).
      expect(binding[0])
        .to.match(/;\s*path=\/(;|$)/i)
        .and.match(/;\s*httponly/i)
        .and.match(/;\s*samesite=lax/i);
      // The form holds nothing that works elsewhere: its action names the screen, not the user.
      expect(action).to.match(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
    });

    it('refuses a consent answer from another browser than the one shown the screen (login CSRF)', async () => {
      const page = await authorize(f.api.baseUrl, f.userToken, f.request({ scope: 'write:petitions' }).params);
      expect(page.status).to.equal(200);
      const cookie = browserCookiesOf(page);
      expect(page.headers.getSetCookie().join())
        .to.match(/HttpOnly/i)
        .and.match(/SameSite=Lax/i);
      const action = consentFormActionOf(await page.text());
      const elsewhere = browserCookiesOf(await authorize(f.api.baseUrl, f.userToken, f.request({ scope: 'write:petitions' }).params));
      expect(elsewhere).to.be.a('string').and.not.equal(cookie);
      const forged = cookie!.replace(/rally_oauth_interaction=[^;]+/, 'rally_oauth_interaction=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      for (const other of [undefined, elsewhere, forged]) {
        const answer = await decide(f.api.baseUrl, action, 'approve', { cookie: other, token: f.userToken });
        expect(answer.status, String(other)).to.equal(400);
        expect(answer.headers.get('location')).to.equal(null);
      }
      const approved = await decide(f.api.baseUrl, action, 'approve', { cookie, token: f.userToken });
      expect(approved.status).to.equal(302);
      const query = new URL(approved.headers.get('location')!).searchParams;
      expect([typeof query.get('code'), query.get('iss')]).to.deep.equal(['string', PUBLIC_URL]);
    });
  });
});
