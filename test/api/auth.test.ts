import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
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

    it('ends the whole login when an already-rotated refresh token is replayed (RFC 9700 §4.14)', async () => {
      const other = await startApi();
      try {
        const reuser = await createTestUser();
        const rt0 = (await login(api.baseUrl, reuser)).refreshToken;
        const first = await post(api, '/v1/auth/refresh', { refresh_token: rt0 });
        expect(first.status).to.equal(200);
        const { data: pair1 } = await json(first);
        expect((await fetch(`${other.baseUrl}/v1/users/me`, { headers: bearer(pair1.access_token) })).status).to.equal(200);

        const replay = await post(api, '/v1/auth/refresh', { refresh_token: rt0 });
        expect(replay.status).to.equal(401);
        expect((await post(api, '/v1/auth/refresh', { refresh_token: pair1.refresh_token })).status).to.equal(401);
        expect((await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(pair1.access_token) })).status).to.equal(401);
        await eventually(
          async () => ((await fetch(`${other.baseUrl}/v1/users/me`, { headers: bearer(pair1.access_token) })).status === 401 ? true : undefined),
          30_000,
          'the other process to refuse the access token',
        );

        const notified = await testEnvironment().db.oneFirst(sql.type(z.object({ count: z.number() }))`
          SELECT count(*)::int AS count FROM notifications WHERE user_id = ${reuser.id} AND type = 'account.session_revoked'
        `);
        expect(notified).to.equal(1);
      } finally {
        await other.stop();
      }
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
        // The other process hears the revocation through NOTIFY: poll until it has.
        const elsewhere = await eventually(
          async () => {
            const response = await fetch(`${other.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) });
            return response.status === 401 ? response : undefined;
          },
          30_000,
          'the other process to refuse the revoked token',
        );
        expect((await json(elsewhere)).code).to.equal('token_revoked');
      } finally {
        await other.stop();
      }
    });

    it('revokes a refresh token', async () => {
      const session = await login(api.baseUrl, user);
      expect(
        (await post(api, '/v1/auth/revoke', { token: session.refreshToken, token_type_hint: 'refresh_token' }, bearer(session.accessToken))).status,
      ).to.equal(204);
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
      const response = await eventually(
        async () => {
          const answer = await fetch(`${api.baseUrl}/v1/users/me`, { headers: bearer(session.accessToken) });
          return answer.status === 403 ? answer : undefined;
        },
        30_000,
        'the suspension to reach the API',
      );
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

    it('let at most 10 of 300 parallel wrong attempts reach the password check', async () => {
      // From an address of its own (through a trusted proxy hop), so the flood does not use up the
      // per-address login budget that every other test shares on 127.0.0.1.
      const open = await startApi({ RALLY_RATE_LIMIT_ENABLED: 'false', RALLY_TRUST_PROXY: '1' });
      try {
        const target = await createTestUser();
        const flooder = { 'x-forwarded-for': '192.0.2.30' };
        const answers = await Promise.all(
          Array.from({ length: 300 }, () => post(open, '/v1/auth/login', { email: target.email, password: 'wrong-password' }, flooder)),
        );
        const statuses = answers.map((answer) => answer.status);
        expect(statuses.filter((status) => status !== 429).length).to.be.at.most(10);
        expect(statuses.filter((status) => status !== 429 && status !== 401)).to.deep.equal([]);
      } finally {
        await open.stop();
      }
    });

    it('lock the email out from every address, the right password too (its browser login has the way back: test/api/login-throttle.test.ts)', async () => {
      const proxied = await startApi({ RALLY_LOGIN_FAILURE_LIMIT: '3/1m', RALLY_TRUST_PROXY: '1' });
      try {
        const target = await createTestUser();
        const attacker = { 'x-forwarded-for': '198.51.100.66' };
        for (let attempt = 0; attempt < 3; attempt += 1) {
          expect((await post(proxied, '/v1/auth/login', { email: target.email, password: 'wrong-password' }, attacker)).status).to.equal(401);
        }
        expect((await post(proxied, '/v1/auth/login', { email: target.email, password: target.password }, attacker)).status).to.equal(429);
        const elsewhere = await post(proxied, '/v1/auth/login', { email: target.email, password: target.password }, { 'x-forwarded-for': '203.0.113.9' });
        expect(elsewhere.status).to.equal(429);
        expect(Number(elsewhere.headers.get('retry-after'))).to.be.within(1, 60);
      } finally {
        await proxied.stop();
      }
    });

    it('are counted per address taken from the right of X-Forwarded-For, whatever the client writes on the left', async () => {
      // Limit 2 per pair, so 10 per address across emails.
      const proxied = await startApi({ RALLY_LOGIN_FAILURE_LIMIT: '2/1m', RALLY_TRUST_PROXY: '1' });
      try {
        const statuses: number[] = [];
        for (let attempt = 0; attempt < 11; attempt += 1) {
          const spoofed = { 'x-forwarded-for': `10.${attempt}.0.1, 198.51.100.77` };
          statuses.push((await post(proxied, '/v1/auth/login', { email: `nobody-${attempt}@example.test`, password: 'wrong-password' }, spoofed)).status);
        }
        expect(
          statuses.slice(0, 10).every((status) => status === 401),
          String(statuses),
        ).to.equal(true);
        expect(statuses[10]).to.equal(429);
      } finally {
        await proxied.stop();
      }
    });
  });
});
