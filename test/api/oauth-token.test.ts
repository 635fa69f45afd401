import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { createSecretBox } from '../../core/webhooks/signing-secrets.ts';
import { loadConfig } from '../../platform/config.ts';
import { testEnvironment } from '../support/environment.ts';
import { cursorWithNul, json } from '../support/http.ts';
import { bearer } from '../support/identity.ts';
import { DESCRIPTION } from '../support/petitions.ts';
import { authorize, tokenRequest } from '../support/oauth.ts';
import { pkce, REDIRECT, startOAuthFixture, type OAuthFixture } from '../support/oauth-fixture.ts';

describe('OAuth 2.0 tokens and what apps may do with them', function () {
  this.timeout(60_000);
  let f: OAuthFixture;
  before(async () => {
    f = await startOAuthFixture();
  });
  after(() => f.api.stop());

  describe('POST /oauth/token', () => {
    it('exchanges a code once; a second use is invalid_grant and revokes the tokens of the first', async () => {
      const { code, verifier } = await f.codeFor();
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      const first = await tokenRequest(f.api.baseUrl, exchange, { basic: f.basic() });
      expect(first.status).to.equal(200);
      expect(first.headers.get('cache-control')).to.equal('no-store');
      const tokens = await json(first);
      expect(tokens).to.include({ token_type: 'Bearer', scope: 'read:profile' });
      expect(tokens.expires_in).to.be.a('number');
      expect((await f.me(tokens.access_token)).status).to.equal(200);
      const second = await tokenRequest(f.api.baseUrl, exchange, { basic: f.basic() });
      expect(second.status).to.equal(400);
      expect((await json(second)).error).to.equal('invalid_grant');
      await f.expectRejected(tokens.access_token);
      const refreshed = await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: f.basic() });
      expect((await json(refreshed)).error).to.equal('invalid_grant');
    });

    it('accepts a JSON body with client_secret_post', async () => {
      const { code, verifier } = await f.codeFor();
      const response = await tokenRequest(
        f.api.baseUrl,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: f.app.client_id,
          client_secret: f.app.client_secret!,
        },
        { json: true },
      );
      expect(response.status).to.equal(200);
      expect((await json(response)).refresh_token).to.be.a('string');
    });

    it('refuses a redirect_uri different from the authorization request (invalid_grant)', async () => {
      const { code, verifier } = await f.codeFor();
      const response = await tokenRequest(
        f.api.baseUrl,
        { grant_type: 'authorization_code', code, redirect_uri: `${REDIRECT}/other`, code_verifier: verifier },
        { basic: f.basic() },
      );
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('invalid_grant');
    });

    it('refuses a missing or wrong PKCE verifier (invalid_grant)', async () => {
      const { code } = await f.codeFor();
      const missing = await tokenRequest(f.api.baseUrl, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { basic: f.basic() });
      expect(missing.status).to.equal(400);
      expect((await json(missing)).error).to.equal('invalid_grant');
      const wrong = await tokenRequest(
        f.api.baseUrl,
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: pkce().verifier },
        { basic: f.basic() },
      );
      expect((await json(wrong)).error).to.equal('invalid_grant');
    });

    it('answers 401 invalid_client for a wrong secret, by Basic and by post', async () => {
      const { code, verifier } = await f.codeFor();
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      const byBasic = await tokenRequest(f.api.baseUrl, exchange, { basic: [f.app.client_id, 'rcs_wrong'] });
      expect(byBasic.status).to.equal(401);
      expect((await json(byBasic)).error).to.equal('invalid_client');
      const byPost = await tokenRequest(f.api.baseUrl, { ...exchange, client_id: f.app.client_id, client_secret: 'rcs_wrong' });
      expect(byPost.status).to.equal(401);
    });

    it('answers 400 invalid_request for malformed Basic credentials and for a text body', async () => {
      const malformed = await fetch(`${f.api.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('%zz:secret').toString('base64')}` },
        body: 'grant_type=client_credentials',
      });
      // Not client_id:client_secret form-encoded (RFC 6749 2.3.1): a malformed request (5.2).
      expect(malformed.status).to.equal(400);
      expect((await json(malformed)).error).to.equal('invalid_request');
      const text = await fetch(`${f.api.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'grant_type=client_credentials',
      });
      expect(text.status).to.equal(400);
      expect((await json(text)).error).to.equal('invalid_request');
    });

    it('answers unsupported_grant_type for password and other grants', async () => {
      const response = await tokenRequest(f.api.baseUrl, { grant_type: 'password', username: 'a', password: 'b' }, { basic: f.basic() });
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('unsupported_grant_type');
    });

    it('rotates refresh tokens; replaying a used one revokes the whole family', async () => {
      const tokens = await f.tokensFor();
      const rotated = await json(await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: f.basic() }));
      expect(rotated.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
      const replay = await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: f.basic() });
      expect(replay.status).to.equal(400);
      expect((await json(replay)).error).to.equal('invalid_grant');
      const afterReplay = await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token }, { basic: f.basic() });
      expect((await json(afterReplay)).error).to.equal('invalid_grant');
      await f.expectRejected(rotated.access_token);
    });

    it('refuses to widen the scope on refresh (invalid_scope)', async () => {
      const tokens = await f.tokensFor();
      const response = await tokenRequest(
        f.api.baseUrl,
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'read:profile write:petitions' },
        { basic: f.basic() },
      );
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('invalid_scope');
    });

    it('answers 401 token_expired for an expired refresh token', async () => {
      const tokens = await f.tokensFor();
      // The authorization server stores a refresh token under the SHA-256 of its value.
      const hash = createHash('sha256').update(tokens.refresh_token).digest('hex');
      await testEnvironment().db.query(
        sql.typeAlias('void')`UPDATE oauth_server_records SET expires_at = now() - interval '1 second' WHERE model = 'RefreshToken' AND id = ${hash}`,
      );
      const response = await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { basic: f.basic() });
      expect(response.status).to.equal(401);
      expect((await json(response)).error).to.equal('token_expired');
    });

    it('gives a confidential client with an owner a token acting for the owner (client_credentials)', async () => {
      const response = await tokenRequest(f.api.baseUrl, { grant_type: 'client_credentials', scope: 'read:profile' }, { basic: f.basic() });
      expect(response.status).to.equal(200);
      const tokens = await json(response);
      expect(tokens.refresh_token).to.equal(undefined);
      expect((await json(await f.me(tokens.access_token))).data.id).to.equal(f.user.id);
    });

    it('refuses client_credentials to a public client (unauthorized_client)', async () => {
      const response = await tokenRequest(f.api.baseUrl, { grant_type: 'client_credentials', client_id: f.publicApp.client_id });
      expect(response.status).to.equal(400);
      expect((await json(response)).error).to.equal('unauthorized_client');
    });
  });

  describe('the signing key of app tokens', () => {
    it('is stored only sealed under RALLY_ENCRYPTION_KEY, and signs what /oauth/jwks verifies', async () => {
      const keys = await testEnvironment().db.any(sql.type(z.object({ kid: z.string(), private_jwk: z.unknown(), sealed_jwk: z.instanceof(Buffer) }))`
        SELECT kid, private_jwk, sealed_jwk FROM oauth_signing_keys`);
      expect(keys).to.have.length.greaterThan(0);
      const published = (await json(await fetch(`${f.api.baseUrl}/oauth/jwks`))).keys as { kid: string; d?: string }[];
      for (const key of keys) {
        expect(key.private_jwk).to.equal(null);
        const jwk = JSON.parse(createSecretBox(loadConfig({}).encryptionKey).open(key.sealed_jwk)) as { d: string };
        expect(key.sealed_jwk.toString('latin1')).to.not.include(jwk.d);
        expect(published.find((each) => each.kid === key.kid)).to.not.have.property('d');
      }
    });
  });

  describe('f.app tokens on the API', () => {
    it('answers 403 insufficient_scope creating a petition with only read:profile', async () => {
      const tokens = await f.tokensFor('read:profile');
      const response = await fetch(`${f.api.baseUrl}/v1/petitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(tokens.access_token) },
        body: JSON.stringify({ title: 'Keep the library open on Sundays', description: DESCRIPTION }),
      });
      expect(response.status).to.equal(403);
      expect((await json(response)).code).to.equal('insufficient_scope');
    });

    it('records triggered_by oauth_app with the client id for what the app does', async () => {
      const tokens = await f.tokensFor('write:petitions');
      const response = await fetch(`${f.api.baseUrl}/v1/petitions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(tokens.access_token) },
        body: JSON.stringify({ title: 'Keep the library open on Sundays', description: DESCRIPTION }),
      });
      expect(response.status).to.equal(201);
      const petition = (await json(response)).data;
      const actor = await testEnvironment().db.one(sql.type(z.object({ actor_type: z.string(), actor_id: z.string().nullable() }))`
        SELECT actor_type, actor_id FROM events WHERE petition_id = ${petition.id} AND type = 'petition.created'
      `);
      expect(actor).to.deep.equal({ actor_type: 'oauth_app', actor_id: f.app.client_id });
    });

    it('cannot reach routes outside its scopes: API keys, nor authorize another app', async () => {
      const tokens = await f.tokensFor('read:profile write:petitions');
      expect((await fetch(`${f.api.baseUrl}/v1/api-keys`, { headers: bearer(tokens.access_token) })).status).to.equal(403);
      expect((await authorize(f.api.baseUrl, tokens.access_token, f.request().params)).status).to.equal(403);
    });
  });

  describe('/v1/users/me/authorizations', () => {
    it('lists the apps the user authorized, and DELETE revokes every token of the grant at once', async () => {
      const [a, b] = [await f.tokensFor(), await f.tokensFor()];
      const list = await json(await fetch(`${f.api.baseUrl}/v1/users/me/authorizations`, { headers: bearer(f.userToken) }));
      const entry = list.data.find((row: { client_id: string }) => row.client_id === f.app.client_id);
      expect(entry).to.include({ name: 'Campaign Tool' });
      expect(entry.scopes).to.include('read:profile');
      const deleted = await fetch(`${f.api.baseUrl}/v1/users/me/authorizations/${f.app.client_id}`, { method: 'DELETE', headers: bearer(f.userToken) });
      expect(deleted.status).to.equal(204);
      await f.expectRejected(a.access_token);
      await f.expectRejected(b.access_token);
      const refreshed = await tokenRequest(f.api.baseUrl, { grant_type: 'refresh_token', refresh_token: b.refresh_token }, { basic: f.basic() });
      expect((await json(refreshed)).error).to.equal('invalid_grant');
      const again = await fetch(`${f.api.baseUrl}/v1/users/me/authorizations/${f.app.client_id}`, { method: 'DELETE', headers: bearer(f.userToken) });
      expect(again.status).to.equal(404);
    });

    it('pages by cursor, and a forged cursor is 400 invalid-cursor', async () => {
      await f.tokensFor();
      const { code, verifier } = await f.codeFor({ client_id: f.publicApp.client_id });
      const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: f.publicApp.client_id };
      expect((await tokenRequest(f.api.baseUrl, exchange)).status).to.equal(200);
      const list = (query: string) => fetch(`${f.api.baseUrl}/v1/users/me/authorizations?${query}`, { headers: bearer(f.userToken) });
      const first = await json(await list('limit=1'));
      expect(first.pagination).to.include({ has_more: true });
      const second = await json(await list(`limit=1&cursor=${first.pagination.next_cursor}`));
      expect([...first.data, ...second.data].map((row: { client_id: string }) => row.client_id).sort()).to.deep.equal(
        [f.app.client_id, f.publicApp.client_id].sort(),
      );
      const forged = await list(`cursor=${cursorWithNul(first.pagination.next_cursor)}`);
      expect([forged.status, (await json(forged)).code]).to.deep.equal([400, 'invalid_cursor']);
    });
  });
});
