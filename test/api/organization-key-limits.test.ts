// The reach of an organization key is bounded: it acts for its organization as an admin, but never
// changes who is in it, never mints personal keys, and stops working while the person who created
// it is suspended from the platform.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

type Person = TestUser & { token: string };

describe('the reach of an organization key', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let owner: Person;
  let admin: Person;
  let member: Person;
  let platformAdmin: Person;

  const person = async (options: { admin?: boolean } = {}): Promise<Person> => {
    const user = await createTestUser(options);
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers as object) } });
  const post = (path: string, token: string, body?: unknown) =>
    call(path, token, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });

  async function team() {
    const org = (await json(await post('/v1/organizations', owner.token, { name: `Clean Air ${randomUUID().slice(0, 8)}` }))).data as { id: string };
    const adminMembership = (await json(await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: admin.id, role: 'admin' }))).data as {
      id: string;
    };
    const memberMembership = (await json(await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: member.id, role: 'member' }))).data as {
      id: string;
    };
    const key = (await json(await post(`/v1/organizations/${org.id}/api-keys`, admin.token, { name: 'CI', scopes: ['full'] }))).data as {
      id: string;
      key: string;
    };
    return { org, adminMembership, memberMembership, key };
  }
  const members = async (orgId: string) =>
    (await json(await call(`/v1/organizations/${orgId}/members?limit=100`, owner.token))).data
      .map((entry: { user_id: string; role: string }) => `${entry.user_id}:${entry.role}`)
      .sort();

  before(async () => {
    api = await startApi();
    [owner, admin, member, platformAdmin] = await Promise.all([person(), person(), person(), person({ admin: true })]);
  });
  after(() => api.stop());

  describe('membership routes', () => {
    it('refuses membership changes made with an organization key', async () => {
      const { org, adminMembership, memberMembership, key } = await team();
      const before = await members(org.id);
      const newcomer = await createTestUser();
      const attempts = [
        post(`/v1/organizations/${org.id}/members`, key.key, { user_id: newcomer.id, role: 'admin' }),
        call(`/v1/organizations/${org.id}/members/${memberMembership.id}`, key.key, { method: 'PATCH', body: JSON.stringify({ role: 'admin' }) }),
        call(`/v1/organizations/${org.id}/members/${adminMembership.id}`, key.key, { method: 'DELETE' }),
        post(`/v1/organizations/${org.id}/members/${adminMembership.id}/transfer-ownership`, key.key),
        post(`/v1/organizations/${org.id}/invitations`, key.key, { email: newcomer.email, role: 'admin' }),
        post(`/v1/invitations/${'A'.repeat(43)}/accept`, key.key),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response.status, response.url).to.equal(403);
        const problem = await json(response);
        expect(problem.code).to.equal('forbidden');
        expect(problem.detail).to.include('membership changes need a person');
      }
      expect(await members(org.id)).to.deep.equal(before);
      // Reading the members and acting for the organization otherwise still work.
      expect((await call(`/v1/organizations/${org.id}/members`, key.key)).status).to.equal(200);
    });
  });

  describe('POST /v1/api-keys', () => {
    it('refuses creating personal keys with an organization key', async () => {
      const { key } = await team();
      const response = await post('/v1/api-keys', key.key, { name: 'more admins', scopes: ['read'] });
      expect(response.status).to.equal(403);
      const problem = await json(response);
      expect(problem.code).to.equal('forbidden');
      expect(problem.detail).to.include('POST /v1/organizations/{id}/api-keys');
      const rotated = await post(`/v1/api-keys/${key.id}/rotate`, key.key);
      expect(rotated.status).to.equal(403);
      expect((await json(rotated)).detail).to.include('/v1/organizations/{id}/api-keys/');
      // Nothing was made: the organization still has its one key.
      expect((await json(await call('/v1/api-keys', key.key))).data.map((entry: { id: string }) => entry.id)).to.deep.equal([key.id]);
    });
  });

  describe('suspension of the key creator', () => {
    it('refuses an organization key while its creator is suspended and accepts it again after', async () => {
      const { org, key } = await team();
      const ownersKey = (await json(await post(`/v1/organizations/${org.id}/api-keys`, owner.token, { name: 'owner', scopes: ['read'] }))).data as {
        key: string;
      };
      expect((await call('/v1/users/me', key.key)).status).to.equal(200);
      expect((await post(`/v1/admin/users/${admin.id}/suspend`, platformAdmin.token, { reason: 'investigation' })).status).to.equal(200);
      try {
        const refused = await call('/v1/users/me', key.key);
        expect(refused.status).to.equal(403);
        expect((await json(refused)).code).to.equal('account_suspended');
        // Another person's key of the same organization keeps working.
        expect((await call('/v1/users/me', ownersKey.key)).status).to.equal(200);
      } finally {
        expect((await post(`/v1/admin/users/${admin.id}/unsuspend`, platformAdmin.token)).status).to.equal(200);
      }
      expect((await call('/v1/users/me', key.key)).status).to.equal(200);
    });
  });
});
