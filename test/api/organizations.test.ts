import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, type RunningApi } from '../support/processes.ts';

type Person = TestUser & { token: string };

describe('Organizations', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let owner: Person;
  let admin: Person;
  let member: Person;
  let stranger: Person;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string | undefined, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...(init.headers as object) } });
  const post = (path: string, token: string | undefined, body?: unknown) =>
    call(path, token, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
  const patch = (path: string, token: string, body: unknown) => call(path, token, { method: 'PATCH', body: JSON.stringify(body) });
  const del = (path: string, token: string) => call(path, token, { method: 'DELETE' });
  const uniqueName = (prefix = 'Friends of the Park') => `${prefix} ${randomUUID().slice(0, 8)}`;

  async function createOrg(token: string, body: Record<string, unknown> = {}) {
    const response = await post('/v1/organizations', token, { name: uniqueName(), ...body });
    const answer = await json(response);
    if (response.status !== 201) throw new Error(`creating an organization failed: ${response.status} ${JSON.stringify(answer)}`);
    return answer.data as { id: string; slug: string; name: string };
  }
  async function addMember(orgId: string, token: string, userId: string, role: 'admin' | 'member') {
    const response = await post(`/v1/organizations/${orgId}/members`, token, { user_id: userId, role });
    const answer = await json(response);
    if (response.status !== 201) throw new Error(`adding a member failed: ${response.status} ${JSON.stringify(answer)}`);
    return answer.data as { id: string; user_id: string; role: string };
  }
  async function membershipOf(orgId: string, token: string, userId: string) {
    const list = await json(await call(`/v1/organizations/${orgId}/members?limit=100`, token));
    return list.data.find((entry: { user_id: string }) => entry.user_id === userId) as { id: string; role: string } | undefined;
  }
  /** An organization with an owner, an admin and a member (the stranger belongs to none). */
  async function team() {
    const org = await createOrg(owner.token);
    const adminMembership = await addMember(org.id, owner.token, admin.id, 'admin');
    const memberMembership = await addMember(org.id, owner.token, member.id, 'member');
    const ownerMembership = (await membershipOf(org.id, owner.token, owner.id))!;
    return { org, ownerMembership, adminMembership, memberMembership };
  }

  before(async () => {
    api = await startApi();
    [owner, admin, member, stranger] = await Promise.all([person(), person(), person(), person()]);
  });
  after(() => api.stop());

  describe('POST /v1/organizations', () => {
    it('creates the organization with the caller as owner', async () => {
      const name = uniqueName('Save The Bees');
      const response = await post('/v1/organizations', owner.token, { name, description: 'Pollinators first.', website: 'https://bees.example' });
      expect(response.status).to.equal(201);
      const org = (await json(response)).data;
      expect(org).to.include({ name, description: 'Pollinators first.', website: 'https://bees.example', verified: false, member_count: 1, petition_count: 0 });
      expect(org.slug).to.match(/^save-the-bees-/);
      const members = await json(await call(`/v1/organizations/${org.id}/members`, owner.token));
      expect(members.data.map((entry: { user_id: string; role: string }) => [entry.user_id, entry.role])).to.deep.equal([[owner.id, 'owner']]);
      expect(members.data[0].id).to.be.a('string');
    });

    it('answers 409 when the name is taken, whatever its case', async () => {
      const org = await createOrg(owner.token);
      const response = await post('/v1/organizations', stranger.token, { name: org.name.toUpperCase() });
      expect(response.status).to.equal(409);
      expect((await json(response)).code).to.equal('organization_name_taken');
    });

    it('answers 409 when another name gives the same slug', async () => {
      const org = await createOrg(owner.token);
      const response = await post('/v1/organizations', stranger.token, { name: `${org.name}!` });
      expect(response.status).to.equal(409);
      expect((await json(response)).code).to.equal('organization_slug_taken');
    });

    it('answers 422 for a name too short, a description too long and a website that is no uri', async () => {
      const response = await post('/v1/organizations', owner.token, { name: 'A', description: 'x'.repeat(1001), website: 'not a url' });
      expect(response.status).to.equal(422);
      const fields = (await json(response)).errors.map((error: { field: string }) => error.field);
      expect(fields).to.include.members(['name', 'description', 'website']);
    });

    it('answers 401 without credentials', async () => {
      expect((await post('/v1/organizations', undefined, { name: uniqueName() })).status).to.equal(401);
    });
  });

  describe('GET /v1/organizations', () => {
    it('pages through organizations with a cursor, newest first', async () => {
      await createOrg(owner.token);
      await createOrg(owner.token);
      const first = await json(await call('/v1/organizations?limit=1', undefined));
      expect(first.data).to.have.length(1);
      expect(first.pagination.has_more).to.equal(true);
      const second = await json(await call(`/v1/organizations?limit=1&cursor=${first.pagination.next_cursor}`, undefined));
      expect(second.data).to.have.length(1);
      expect(second.data[0].id).to.not.equal(first.data[0].id);
      expect(Date.parse(second.data[0].created_at)).to.be.at.most(Date.parse(first.data[0].created_at));
    });

    it('lists only verified organizations with verified_only=true', async () => {
      await createOrg(owner.token);
      const answer = await json(await call('/v1/organizations?verified_only=true&limit=100', undefined));
      expect(answer.data.every((org: { verified: boolean }) => org.verified)).to.equal(true);
    });

    it('answers 400 for a cursor it did not issue', async () => {
      expect((await call('/v1/organizations?cursor=bm9wZQ', undefined)).status).to.equal(400);
    });
  });

  describe('GET /v1/organizations/{slug}', () => {
    it('shows the public profile with member and petition counts', async () => {
      const { org } = await team();
      const response = await call(`/v1/organizations/${org.slug}`, undefined);
      expect(response.status).to.equal(200);
      const profile = (await json(response)).data;
      expect(profile).to.include({ id: org.id, slug: org.slug, name: org.name, member_count: 3, petition_count: 0, verified: false });
      expect(profile).to.have.keys('id', 'slug', 'name', 'description', 'website', 'logo_url', 'verified', 'member_count', 'petition_count', 'created_at');
    });

    it('answers 404 for an unknown slug', async () => {
      expect((await call('/v1/organizations/no-such-organization-here', undefined)).status).to.equal(404);
    });
  });

  describe('PATCH /v1/organizations/{org_id}', () => {
    it('lets the owner and an admin change it, and refuses a member and a stranger with 403', async () => {
      const { org } = await team();
      const byOwner = await patch(`/v1/organizations/${org.id}`, owner.token, { description: 'By the owner' });
      expect(byOwner.status).to.equal(200);
      expect((await json(byOwner)).data.description).to.equal('By the owner');
      const byAdmin = await patch(`/v1/organizations/${org.id}`, admin.token, { website: 'https://admin.example' });
      expect(byAdmin.status).to.equal(200);
      expect((await json(byAdmin)).data).to.include({ website: 'https://admin.example', description: 'By the owner' });
      expect((await patch(`/v1/organizations/${org.id}`, member.token, { description: 'x' })).status).to.equal(403);
      expect((await patch(`/v1/organizations/${org.id}`, stranger.token, { description: 'x' })).status).to.equal(403);
    });

    it('answers 404 for an unknown organization and 401 without credentials', async () => {
      expect((await patch(`/v1/organizations/${randomUUID()}`, owner.token, { description: 'x' })).status).to.equal(404);
      expect((await call(`/v1/organizations/${randomUUID()}`, undefined, { method: 'PATCH', body: '{"description":"x"}' })).status).to.equal(401);
    });
  });

  describe('DELETE /v1/organizations/{org_id}', () => {
    it('is for the owner only: admins, members and strangers get 403', async () => {
      const { org } = await team();
      for (const caller of [admin, member, stranger]) expect((await del(`/v1/organizations/${org.id}`, caller.token)).status).to.equal(403);
      expect((await del(`/v1/organizations/${org.id}`, owner.token)).status).to.equal(204);
      expect((await call(`/v1/organizations/${org.slug}`, undefined)).status).to.equal(404);
    });
  });

  describe('GET /v1/organizations/{org_id}/members', () => {
    it('lists members for members, filtered by role, and answers 403 to strangers', async () => {
      const { org, adminMembership } = await team();
      const admins = await json(await call(`/v1/organizations/${org.id}/members?role=admin`, member.token));
      expect(admins.data.map((entry: { id: string }) => entry.id)).to.deep.equal([adminMembership.id]);
      const page = await json(await call(`/v1/organizations/${org.id}/members?limit=2`, member.token));
      expect(page.data).to.have.length(2);
      const rest = await json(await call(`/v1/organizations/${org.id}/members?limit=2&cursor=${page.pagination.next_cursor}`, member.token));
      expect(rest.data).to.have.length(1);
      expect(rest.pagination.has_more).to.equal(false);
      expect((await call(`/v1/organizations/${org.id}/members`, stranger.token)).status).to.equal(403);
      expect((await call(`/v1/organizations/${org.id}/members`, undefined)).status).to.equal(401);
    });
  });

  describe('POST /v1/organizations/{org_id}/members', () => {
    it('lets an admin add, and refuses a member and a stranger with 403', async () => {
      const { org } = await team();
      const newcomer = await createTestUser();
      expect((await post(`/v1/organizations/${org.id}/members`, member.token, { user_id: newcomer.id, role: 'member' })).status).to.equal(403);
      expect((await post(`/v1/organizations/${org.id}/members`, stranger.token, { user_id: newcomer.id, role: 'member' })).status).to.equal(403);
      const added = await post(`/v1/organizations/${org.id}/members`, admin.token, { user_id: newcomer.id, role: 'member' });
      expect(added.status).to.equal(201);
      expect((await json(added)).data).to.include({ user_id: newcomer.id, role: 'member' });
    });

    it('answers 422 for role owner', async () => {
      const { org } = await team();
      const response = await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: stranger.id, role: 'owner' });
      expect(response.status).to.equal(422);
      expect((await json(response)).errors[0].field).to.equal('role');
    });

    it('answers 409 for someone who is already a member', async () => {
      const { org } = await team();
      const response = await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: member.id, role: 'admin' });
      expect(response.status).to.equal(409);
    });

    it('answers 404 for an unknown user or organization', async () => {
      const { org } = await team();
      expect((await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: randomUUID(), role: 'member' })).status).to.equal(404);
      expect((await post(`/v1/organizations/${randomUUID()}/members`, owner.token, { user_id: stranger.id, role: 'member' })).status).to.equal(404);
    });

    it("answers 402 naming the limit once the free tier's 5 members are reached", async () => {
      const { org } = await team();
      for (let index = 0; index < 2; index += 1) await addMember(org.id, owner.token, (await createTestUser()).id, 'member');
      const response = await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: (await createTestUser()).id, role: 'member' });
      expect(response.status).to.equal(402);
      const problem = await json(response);
      expect(problem.type).to.match(/\/problems\/payment-required$/);
      expect(problem.code).to.equal('member_limit_reached');
      expect(problem.detail).to.include('member_limit');
    });

    it('gives exactly 2 × 201 for 10 parallel adds into 2 free slots', async () => {
      const { org } = await team();
      const users = await Promise.all(Array.from({ length: 10 }, () => createTestUser()));
      const statuses = await Promise.all(
        users.map(async (user) => (await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: user.id, role: 'member' })).status),
      );
      expect(statuses.filter((status) => status === 201)).to.have.length(2);
      expect(statuses.filter((status) => status === 402)).to.have.length(8);
      expect((await json(await call(`/v1/organizations/${org.slug}`, undefined))).data.member_count).to.equal(5);
    });
  });

  describe('PATCH /v1/organizations/{org_id}/members/{membership_id}', () => {
    it('lets an admin promote a member, refuses a member with 403, and the owner role stays fixed (409)', async () => {
      const { org, ownerMembership, memberMembership } = await team();
      expect((await patch(`/v1/organizations/${org.id}/members/${memberMembership.id}`, member.token, { role: 'admin' })).status).to.equal(403);
      const promoted = await patch(`/v1/organizations/${org.id}/members/${memberMembership.id}`, admin.token, { role: 'admin' });
      expect(promoted.status).to.equal(200);
      expect((await json(promoted)).data).to.include({ id: memberMembership.id, user_id: member.id, role: 'admin' });
      expect((await patch(`/v1/organizations/${org.id}/members/${ownerMembership.id}`, admin.token, { role: 'member' })).status).to.equal(409);
    });

    it('answers 404 for a membership of another organization', async () => {
      const { org } = await team();
      const other = await team();
      expect((await patch(`/v1/organizations/${org.id}/members/${other.memberMembership.id}`, owner.token, { role: 'admin' })).status).to.equal(404);
    });
  });

  describe('DELETE /v1/organizations/{org_id}/members/{membership_id}', () => {
    it('refuses to remove the sole owner with 409, even by the owner', async () => {
      const { org, ownerMembership } = await team();
      expect((await del(`/v1/organizations/${org.id}/members/${ownerMembership.id}`, owner.token)).status).to.equal(409);
      expect((await del(`/v1/organizations/${org.id}/members/${ownerMembership.id}`, admin.token)).status).to.equal(409);
    });

    it('lets a member leave, but not remove someone else (403)', async () => {
      const { org, adminMembership, memberMembership } = await team();
      expect((await del(`/v1/organizations/${org.id}/members/${adminMembership.id}`, member.token)).status).to.equal(403);
      expect((await del(`/v1/organizations/${org.id}/members/${memberMembership.id}`, member.token)).status).to.equal(204);
      expect(await membershipOf(org.id, owner.token, member.id)).to.equal(undefined);
    });

    it("takes effect on the removed member's next request", async () => {
      const { org, adminMembership } = await team();
      expect((await call(`/v1/organizations/${org.id}/members`, admin.token)).status).to.equal(200);
      expect((await del(`/v1/organizations/${org.id}/members/${adminMembership.id}`, owner.token)).status).to.equal(204);
      expect((await call(`/v1/organizations/${org.id}/members`, admin.token)).status).to.equal(403);
      expect((await patch(`/v1/organizations/${org.id}`, admin.token, { description: 'still admin?' })).status).to.equal(403);
    });
  });

  describe('POST /v1/organizations/{org_id}/members/{membership_id}/transfer-ownership', () => {
    it('makes an admin the owner and the old owner an admin', async () => {
      const { org, ownerMembership, adminMembership } = await team();
      const response = await post(`/v1/organizations/${org.id}/members/${adminMembership.id}/transfer-ownership`, owner.token);
      expect(response.status).to.equal(200);
      expect((await json(response)).data).to.include({ id: adminMembership.id, user_id: admin.id, role: 'owner' });
      expect(await membershipOf(org.id, admin.token, owner.id)).to.include({ id: ownerMembership.id, role: 'admin' });
      // The new owner now holds the owner's rights, the old one no longer does.
      expect((await del(`/v1/organizations/${org.id}`, owner.token)).status).to.equal(403);
      expect((await del(`/v1/organizations/${org.id}`, admin.token)).status).to.equal(204);
    });

    it('is for the current owner only (403) and only towards an admin (409)', async () => {
      const { org, adminMembership, memberMembership } = await team();
      expect((await post(`/v1/organizations/${org.id}/members/${adminMembership.id}/transfer-ownership`, admin.token)).status).to.equal(403);
      expect((await post(`/v1/organizations/${org.id}/members/${memberMembership.id}/transfer-ownership`, owner.token)).status).to.equal(409);
      expect((await post(`/v1/organizations/${org.id}/members/${randomUUID()}/transfer-ownership`, owner.token)).status).to.equal(404);
    });
  });
});
