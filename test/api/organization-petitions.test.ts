import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { createPetition, DESCRIPTION, transition } from '../support/petitions.ts';
import { runRallyCli, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { createMediaClient, makePng } from '../support/media.ts';
import { SHORT_WINDOWS, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Person = TestUser & { token: string };

describe('organization petitions and tiers', function () {
  this.timeout(90_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let receiver: WebhookReceiver;
  let owner: Person;
  let admin: Person;
  let member: Person;
  let stranger: Person;
  const env = { ...SHORT_WINDOWS, RALLY_TASK_QUEUE: uniqueTaskQueue('organizations') };

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string | undefined, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...(init.headers as object) } });
  const post = (path: string, token: string, body?: unknown) =>
    call(path, token, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });

  async function team() {
    const created = await post('/v1/organizations', owner.token, { name: `Clean Rivers ${randomUUID().slice(0, 8)}` });
    const org = (await json(created)).data as { id: string; slug: string };
    for (const [user, role] of [
      [admin, 'admin'],
      [member, 'member'],
    ] as const) {
      const added = await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: user.id, role });
      if (added.status !== 201) throw new Error(`adding failed: ${added.status}`);
    }
    return org;
  }
  const ids = (answer: { data: { id: string }[] }) => answer.data.map((petition) => petition.id);

  before(async () => {
    receiver = await startWebhookReceiver();
    // One after the other: on a busy machine the worker's bundling slows the API's start past its limit.
    api = await startApi(env);
    worker = await startWorker(env);
    [owner, admin, member, stranger] = await Promise.all([person(), person(), person(), person()]);
  });
  after(async () => {
    await Promise.all([api.stop(), worker.stop()]);
    await receiver.close();
  });

  describe('POST /v1/petitions with orgId', () => {
    it('files the petition under the organization for a member', async () => {
      const org = await team();
      const petition = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      expect(petition.org_id).to.equal(org.id);
    });

    it('answers 403 to someone outside the organization and 422 for an unknown organization', async () => {
      const org = await team();
      const body = { title: 'Clean the river banks', description: DESCRIPTION };
      const outside = await post('/v1/petitions', stranger.token, { ...body, orgId: org.id });
      expect(outside.status).to.equal(403);
      const unknown = await post('/v1/petitions', member.token, { ...body, orgId: randomUUID() });
      expect(unknown.status).to.equal(422);
      expect((await json(unknown)).errors[0].field).to.equal('orgId');
    });
  });

  describe("managing an organization's petitions", () => {
    it("lets the owner and admins update, publish and close a member's petition; other members get 403", async () => {
      const org = await team();
      const petition = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      const colleague = await person();
      await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: colleague.id, role: 'member' });
      expect(
        (await call(`/v1/petitions/${petition.id}`, colleague.token, { method: 'PATCH', body: JSON.stringify({ title: 'Not mine to change' }) })).status,
      ).to.equal(403);
      expect((await transition(api.baseUrl, stranger.token, petition.id, 'publish')).status).to.equal(403);
      const updated = await call(`/v1/petitions/${petition.id}`, admin.token, {
        method: 'PATCH',
        body: JSON.stringify({ title: 'Clean the river banks now' }),
      });
      expect(updated.status).to.equal(200);
      expect((await transition(api.baseUrl, admin.token, petition.id, 'publish')).status).to.equal(200);
      expect((await transition(api.baseUrl, owner.token, petition.id, 'close')).status).to.equal(200);
    });

    it('lets an admin add decision makers, and read a draft of the organization', async () => {
      const org = await team();
      const petition = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      expect((await call(`/v1/petitions/${petition.id}`, admin.token)).status).to.equal(200);
      expect((await call(`/v1/petitions/${petition.id}`, stranger.token)).status).to.equal(404);
      const added = await post(`/v1/petitions/${petition.id}/decision-makers`, admin.token, { name: 'Ada Mayor', title: 'Mayor', email: 'mayor@example.test' });
      expect(added.status).to.equal(201);
    });

    it('stops an admin the moment they are removed', async () => {
      const org = await team();
      const petition = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      const members = await json(await call(`/v1/organizations/${org.id}/members?role=admin`, owner.token));
      expect((await call(`/v1/organizations/${org.id}/members/${members.data[0].id}`, owner.token, { method: 'DELETE' })).status).to.equal(204);
      expect(
        (await call(`/v1/petitions/${petition.id}`, admin.token, { method: 'PATCH', body: JSON.stringify({ title: 'Changed after removal' }) })).status,
      ).to.equal(403);
    });
  });

  describe('GET /v1/organizations/{org_id}/petitions', () => {
    it('shows the public published petitions to anyone, drafts to their creator and to admins', async () => {
      const org = await team();
      const draft = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      const live = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      expect((await transition(api.baseUrl, member.token, live.id, 'publish')).status).to.equal(200);
      const path = `/v1/organizations/${org.id}/petitions`;
      expect(ids(await json(await call(path, undefined)))).to.deep.equal([live.id]);
      expect(ids(await json(await call(path, stranger.token)))).to.deep.equal([live.id]);
      expect(ids(await json(await call(path, member.token)))).to.deep.equal([live.id, draft.id]);
      expect(ids(await json(await call(path, admin.token)))).to.deep.equal([live.id, draft.id]);
      const firstPage = await json(await call(`${path}?limit=1`, admin.token));
      expect(ids(firstPage)).to.deep.equal([live.id]);
      expect(ids(await json(await call(`${path}?limit=1&cursor=${firstPage.pagination.next_cursor}`, admin.token)))).to.deep.equal([draft.id]);
      expect((await json(await call(`/v1/organizations/${org.slug}`, undefined))).data.petition_count).to.equal(1);
    });

    it('answers 404 for an unknown organization', async () => {
      expect((await call(`/v1/organizations/${randomUUID()}/petitions`, undefined)).status).to.equal(404);
    });
  });

  describe('DELETE /v1/organizations/{org_id}', () => {
    it('leaves the petitions to their creators', async () => {
      const org = await team();
      const petition = await createPetition(api.baseUrl, member.token, { orgId: org.id });
      expect((await call(`/v1/organizations/${org.id}`, owner.token, { method: 'DELETE' })).status).to.equal(204);
      const after = await call(`/v1/petitions/${petition.id}`, member.token);
      expect(after.status).to.equal(200);
      expect((await json(after)).data).to.include({ org_id: null });
      expect(
        (await call(`/v1/petitions/${petition.id}`, admin.token, { method: 'PATCH', body: JSON.stringify({ title: 'Admin no more here' }) })).status,
      ).to.equal(403);
    });
  });

  describe('organization logos', () => {
    it("attaches an admin's org_logo upload as the organization's logo_url; a plain member gets 403", async () => {
      const org = await team();
      const memberUpload = createMediaClient(api.baseUrl, member.token);
      const refused = await memberUpload.requestUpload('org_logo', 'logo.png', 'image/png');
      expect((await memberUpload.put(refused.upload_url, await makePng(300, 300), 'image/png')).status).to.be.within(200, 299);
      expect((await memberUpload.confirm(refused.media_id, org.id)).status).to.equal(403);

      const client = createMediaClient(api.baseUrl, admin.token);
      const ticket = await client.requestUpload('org_logo', 'logo.png', 'image/png');
      expect((await client.put(ticket.upload_url, await makePng(300, 300), 'image/png')).status).to.be.within(200, 299);
      expect((await client.confirm(ticket.media_id, org.id)).status).to.equal(200);
      const media = await client.settled(ticket.media_id);
      expect(media.status, media.failure_reason).to.equal('ready');
      const profile = (await json(await call(`/v1/organizations/${org.slug}`, undefined))).data;
      expect(profile.logo_url)
        .to.be.a('string')
        .and.to.equal(media.variants.find((variant: { name: string }) => variant.name === 'logo').url);
    });
  });

  describe('GET /v1/organizations/{org_id}/subscription and rally orgs set-tier', () => {
    it('shows the free tier to members and answers 403 to strangers', async () => {
      const org = await team();
      const response = await call(`/v1/organizations/${org.id}/subscription`, member.token);
      expect(response.status).to.equal(200);
      expect((await json(response)).data).to.deep.equal({
        tier: 'free',
        status: 'active',
        member_limit: 5,
        members_used: 3,
        api_key_limit: 2,
        current_period_end: null,
      });
      expect((await call(`/v1/organizations/${org.id}/subscription`, stranger.token)).status).to.equal(403);
      expect((await call(`/v1/organizations/${org.id}/subscription`, undefined)).status).to.equal(401);
    });

    it("raises the member limit on upgrade and sends payment.completed to the owner's webhook", async () => {
      const org = await team();
      const hook = await post('/v1/webhooks', owner.token, { url: receiver.url(`/org-${org.id}`), events: ['payment.completed'] });
      expect(hook.status).to.equal(201);
      const { stdout } = await runRallyCli(['orgs', 'set-tier', '--org', org.slug, '--tier', 'pro']);
      expect(JSON.parse(stdout)).to.include({ organization_id: org.id, previous_tier: 'free', tier: 'pro', upgraded: true });
      const subscription = (await json(await call(`/v1/organizations/${org.id}/subscription`, owner.token))).data;
      expect(subscription).to.include({ tier: 'pro', member_limit: 50 });
      const [delivery] = await receiver.waitFor(`/org-${org.id}`, 1, 30_000);
      const payload = JSON.parse(delivery!.body);
      expect(payload.type).to.equal('payment.completed');
      expect(payload.data).to.include({ organization_id: org.id, previous_tier: 'free', tier: 'pro' });
      const unlimited = await runRallyCli(['orgs', 'set-tier', '--org', org.slug, '--tier', 'enterprise']);
      expect(JSON.parse(unlimited.stdout)).to.include({ tier: 'enterprise' });
      expect((await json(await call(`/v1/organizations/${org.id}/subscription`, owner.token))).data.member_limit).to.equal(null);
    });

    it('refuses an unknown tier and an unknown organization with a message and a non-zero exit', async () => {
      const failures = await Promise.all([
        runRallyCli(['orgs', 'set-tier', '--org', 'x', '--tier', 'platinum']).then(
          () => undefined,
          (error: { code: number; stderr: string }) => error,
        ),
        runRallyCli(['orgs', 'set-tier', '--org', 'no-such-org-anywhere', '--tier', 'pro']).then(
          () => undefined,
          (error: { code: number; stderr: string }) => error,
        ),
      ]);
      expect(failures[0]?.code).to.equal(2);
      expect(failures[0]?.stderr).to.include('--tier');
      expect(failures[1]?.code).to.equal(2);
      expect(failures[1]?.stderr).to.include('no-such-org-anywhere');
    });
  });
});
