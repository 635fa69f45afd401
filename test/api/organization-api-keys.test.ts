import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { DESCRIPTION } from '../support/petitions.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

type Person = TestUser & { token: string };

describe('organization API keys', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let owner: Person;
  let admin: Person;
  let member: Person;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers as object) } });
  const post = (path: string, token: string, body?: unknown) =>
    call(path, token, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });

  async function team() {
    const org = (await json(await post('/v1/organizations', owner.token, { name: `Open Data ${randomUUID().slice(0, 8)}` }))).data as {
      id: string;
      slug: string;
    };
    const adminMembership = (await json(await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: admin.id, role: 'admin' }))).data;
    await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: member.id, role: 'member' });
    return { org, adminMembership: adminMembership as { id: string } };
  }
  async function orgKey(orgId: string, token: string, scope = 'read_write') {
    const response = await post(`/v1/organizations/${orgId}/api-keys`, token, { name: `key ${scope}`, scopes: [scope] });
    const body = await json(response);
    if (response.status !== 201) throw new Error(`creating an org key failed: ${response.status} ${JSON.stringify(body)}`);
    return body.data as { id: string; key: string; prefix: string; scopes: string[]; status: string };
  }
  const orgPetition = (orgId: string, token: string) => post('/v1/petitions', token, { title: 'Publish the transit data', description: DESCRIPTION, orgId });

  before(async () => {
    api = await startApi();
    [owner, admin, member] = await Promise.all([person(), person(), person()]);
  });
  after(() => api.stop());

  describe('POST /v1/organizations/{org_id}/api-keys', () => {
    it('gives an admin a key shaped like a personal one, shown once', async () => {
      const { org } = await team();
      const key = await orgKey(org.id, admin.token);
      expect(key.key).to.match(/^rally_live_[A-Za-z0-9_-]{43}$/);
      expect(key).to.include({ status: 'active' });
      expect(key.scopes).to.deep.equal(['read_write']);
      const listed = await json(await call(`/v1/organizations/${org.id}/api-keys`, owner.token));
      expect(listed.data.map((entry: { id: string }) => entry.id)).to.deep.equal([key.id]);
      expect(JSON.stringify(listed)).to.not.include(key.key);
    });

    it('answers 403 to a plain member, for creating and listing', async () => {
      const { org } = await team();
      expect((await post(`/v1/organizations/${org.id}/api-keys`, member.token, { name: 'mine', scopes: ['read'] })).status).to.equal(403);
      expect((await call(`/v1/organizations/${org.id}/api-keys`, member.token)).status).to.equal(403);
    });

    it("answers 402 api_key_limit_reached beyond the free tier's 2 keys", async () => {
      const { org } = await team();
      await orgKey(org.id, owner.token);
      await orgKey(org.id, owner.token);
      const response = await post(`/v1/organizations/${org.id}/api-keys`, owner.token, { name: 'third', scopes: ['read'] });
      expect(response.status).to.equal(402);
      expect((await json(response)).code).to.equal('api_key_limit_reached');
    });
  });

  describe('acting with an organization key', () => {
    it('creates petitions for the organization, recorded as triggered by the key', async () => {
      const { org } = await team();
      const key = await orgKey(org.id, admin.token);
      const response = await orgPetition(org.id, key.key);
      expect(response.status).to.equal(201);
      const petition = (await json(response)).data;
      expect(petition.org_id).to.equal(org.id);
      const event = await testEnvironment().db.one(sql.type(z.object({ actor_type: z.string(), actor_id: z.string().nullable() }))`
        SELECT actor_type, actor_id FROM events WHERE petition_id = ${petition.id} AND type = 'petition.created'`);
      expect(event).to.deep.equal({ actor_type: 'api_key', actor_id: key.id });
    });

    it('keeps working after the admin who created it is removed', async () => {
      const { org, adminMembership } = await team();
      const key = await orgKey(org.id, admin.token);
      expect((await call(`/v1/organizations/${org.id}/members/${adminMembership.id}`, owner.token, { method: 'DELETE' })).status).to.equal(204);
      expect((await orgPetition(org.id, key.key)).status).to.equal(201);
      expect((await call(`/v1/organizations/${org.id}/members`, key.key)).status).to.equal(200);
    });

    it('cannot act for another organization', async () => {
      const { org } = await team();
      const other = await team();
      const key = await orgKey(org.id, owner.token);
      expect((await orgPetition(other.org.id, key.key)).status).to.equal(403);
    });
  });

  describe('rotation and revocation', () => {
    it('rotates through the grace-period workflow: both keys work during the grace window', async () => {
      const { org } = await team();
      const key = await orgKey(org.id, owner.token);
      const response = await post(`/v1/organizations/${org.id}/api-keys/${key.id}/rotate`, admin.token);
      expect(response.status).to.equal(200);
      const { new_key: fresh, old_key: old } = (await json(response)).data;
      expect(old).to.include({ id: key.id, status: 'rotating', replaced_by: fresh.id });
      expect((await call(`/v1/organizations/${org.id}/members`, key.key)).status).to.equal(200);
      expect((await call(`/v1/organizations/${org.id}/members`, fresh.key)).status).to.equal(200);
    });

    it('revokes a key with DELETE, and answers 404 for a key of another organization', async () => {
      const { org } = await team();
      const other = await team();
      const key = await orgKey(org.id, owner.token);
      const foreign = await orgKey(other.org.id, owner.token);
      expect((await call(`/v1/organizations/${org.id}/api-keys/${foreign.id}`, owner.token, { method: 'DELETE' })).status).to.equal(404);
      expect((await call(`/v1/organizations/${org.id}/api-keys/${key.id}`, owner.token, { method: 'DELETE' })).status).to.equal(204);
      expect((await call(`/v1/organizations/${org.id}/members`, key.key)).status).to.equal(401);
    });

    it('revokes every key of the organization when it is deleted', async () => {
      const { org } = await team();
      const key = await orgKey(org.id, owner.token);
      expect((await call(`/v1/organizations/${org.id}`, owner.token, { method: 'DELETE' })).status).to.equal(204);
      expect((await call('/v1/users/me', key.key)).status).to.equal(401);
    });

    it('answers requests racing the deletion of their organization with 2xx, 404 or 409, never 500', async () => {
      const statuses = new Set<number>();
      for (let round = 0; round < 20; round += 1) {
        const org = (await json(await post('/v1/organizations', owner.token, { name: `Racing ${randomUUID().slice(0, 8)}` }))).data as { id: string };
        const key = await orgKey(org.id, owner.token);
        const keyPath = `/v1/organizations/${org.id}/api-keys/${key.id}`;
        const answers = await Promise.all([
          call(`/v1/organizations/${org.id}`, owner.token, { method: 'DELETE' }),
          call(keyPath, owner.token, { method: 'DELETE' }),
          call(`${keyPath}/rotate`, owner.token, { method: 'POST' }),
          call(`/v1/organizations/${org.id}/api-keys`, owner.token),
          call(`/v1/organizations/${org.id}/subscription`, owner.token),
          post(`/v1/organizations/${org.id}/invitations`, owner.token, { email: `racing-${round}@example.test`, role: 'member' }),
          call(keyPath, owner.token, { method: 'DELETE' }),
        ]);
        expect(answers[0]!.status, 'deleting the organization').to.equal(204);
        for (const answer of answers.slice(1)) statuses.add(answer.status);
      }
      // The key requests that lost the race find no organization (404) or a revoked key (409);
      // the ones that won revoke, rotate, read or invite.
      expect([...statuses].filter((status) => (status < 200 || status > 299) && status !== 404 && status !== 409)).to.deep.equal([]);
    });
  });
});
