import { expect } from 'chai';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

const post = (api: RunningApi, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${api.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('authentication', function () {
  this.timeout(60_000);
  let api: RunningApi;
  let user: TestUser;

  before(async () => {
    api = await startApi();
    user = await createTestUser();
  });
  after(() => api.stop());

  describe('POST /v1/auth/login', () => {
    it('answers the token pair for the right password', async () => {
      const response = await post(api, '/v1/auth/login', { email: user.email, password: user.password });
      expect(response.status).to.equal(200);
      const { data } = await json(response);
      expect(data).to.have.all.keys('token', 'access_token', 'refresh_token', 'expires_in', 'token_type');
      expect(data.token_type).to.equal('Bearer');
      expect(data.access_token.split('.')).to.have.length(3);
    });

    it('answers 401 alike for a wrong password and an unknown email', async () => {
      const wrong = await post(api, '/v1/auth/login', { email: user.email, password: 'not-the-password' });
      const unknown = await post(api, '/v1/auth/login', { email: 'nobody-here@example.test', password: 'whatever-it-is' });
      expect([wrong.status, unknown.status]).to.deep.equal([401, 401]);
      const [a, b] = [await json(wrong), await json(unknown)];
      expect(a.detail).to.equal(b.detail);
      expect(a.code).to.equal('invalid_credentials');
    });

    it('answers 422 naming the missing field', async () => {
      const response = await post(api, '/v1/auth/login', { email: user.email });
      expect(response.status).to.equal(422);
      expect((await json(response)).errors).to.deep.include({ field: 'password', code: 'required', message: 'is required' });
    });
  });

  describe('GET /v1/users/me with an access token', () => {
    it('answers the caller, also at /v1/me', async () => {
      const session = await login(api.baseUrl, user);
      for (const path of ['/v1/users/me', '/v1/me']) {
        const response = await fetch(`${api.baseUrl}${path}`, { headers: bearer(session.accessToken) });
        expect(response.status).to.equal(200);
        expect((await json(response)).data).to.include({ id: user.id, email: user.email });
      }
    });

    it('answers 401 without credentials and with a forged token', async () => {
      expect((await fetch(`${api.baseUrl}/v1/users/me`)).status).to.equal(401);
      const forged = await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.') });
      expect(forged.status).to.equal(401);
    });
  });

  describe('POST /v1/auth/refresh', () => {
    it('exchanges a refresh token for a new pair', async () => {
      const session = await login(api.baseUrl, user);
      const response = await post(api, '/v1/auth/refresh', { refresh_token: session.refreshToken });
      expect(response.status).to.equal(200);
      const { data } = await json(response);
      expect(data.refresh_token).to.be.a('string').and.not.equal(session.refreshToken);
      expect((await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(data.access_token) })).status).to.equal(200);
    });

    it('answers 401 after logout', async () => {
      const session = await login(api.baseUrl, user);
      expect((await post(api, '/v1/auth/logout', { refresh_token: session.refreshToken })).status).to.equal(204);
      const response = await post(api, '/v1/auth/refresh', { refresh_token: session.refreshToken });
      expect(response.status).to.equal(401);
    });

    it('answers 401 token_expired for an expired refresh token', async () => {
      const shortLived = await startApi({ RALLY_REFRESH_TOKEN_TTL: '1s' });
      try {
        const session = await login(shortLived.baseUrl, user);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const response = await post(shortLived, '/v1/auth/refresh', { refresh_token: session.refreshToken });
        expect(response.status).to.equal(401);
        expect((await json(response)).code).to.equal('token_expired');
      } finally {
        await shortLived.stop();
      }
    });
  });

  describe('POST /v1/auth/revoke', () => {
    it('invalidates an access token at once, on every API process', async () => {
      const other = await startApi();
      try {
        const session = await login(api.baseUrl, user);
        expect((await fetch(`${other.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) })).status).to.equal(200);
        const revoked = await post(api, '/v1/auth/revoke', { token: session.accessToken, token_type_hint: 'access_token' }, bearer(session.accessToken));
        expect(revoked.status).to.equal(204);
        expect((await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) })).status).to.equal(401);
        // The other process hears the revocation through NOTIFY; give it a moment to arrive.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const elsewhere = await fetch(`${other.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) });
        expect(elsewhere.status).to.equal(401);
        expect((await json(elsewhere)).code).to.equal('token_revoked');
      } finally {
        await other.stop();
      }
    });

    it('revokes a refresh token', async () => {
      const session = await login(api.baseUrl, user);
      expect((await post(api, '/v1/auth/revoke', { token: session.refreshToken, token_type_hint: 'refresh_token' }, bearer(session.accessToken))).status).to.equal(204);
      expect((await post(api, '/v1/auth/refresh', { refresh_token: session.refreshToken })).status).to.equal(401);
    });
  });

  describe('a suspended user', () => {
    it('is refused with 403 account_suspended', async () => {
      const suspended = await createTestUser();
      const session = await login(api.baseUrl, suspended);
      await testEnvironment().db.query(sql.typeAlias('void')`
        WITH changed AS (UPDATE users SET suspended_at = now() WHERE id = ${suspended.id} RETURNING id)
        SELECT FROM changed, pg_notify('rally_user_changed', changed.id::text)
      `);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const response = await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) });
      expect(response.status).to.equal(403);
      expect((await json(response)).code).to.equal('account_suspended');
    });
  });

  describe('repeated failed logins', () => {
    it('are refused with 429 after the limit, with Retry-After', async () => {
      const strict = await startApi({ RALLY_LOGIN_FAILURE_LIMIT: '3/1m' });
      try {
        const target = await createTestUser();
        for (let attempt = 0; attempt < 3; attempt += 1) {
          expect((await post(strict, '/v1/auth/login', { email: target.email, password: 'wrong-password' })).status).to.equal(401);
        }
        const refused = await post(strict, '/v1/auth/login', { email: target.email, password: target.password });
        expect(refused.status).to.equal(429);
        expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
        expect((await json(refused)).type).to.match(/\/problems\/rate-limited$/);
      } finally {
        await strict.stop();
      }
    });
  });
});
