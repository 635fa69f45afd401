// Who created each organization key, and what the owner and admins hear when that person leaves
// the organization or stops being an admin: an in-app notification and an email naming the keys to
// rotate (names and prefixes, never secrets), and an audit log row.
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

type Person = TestUser & { token: string };
type Key = { id: string; key: string; prefix: string; name: string; created_by: string | null };

describe('organization key creators', function () {
  this.timeout(120_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mailDir: string;
  let owner: Person;
  let otherAdmin: Person;

  const person = async (): Promise<Person> => {
    const user = await createTestUser();
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };
  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${api.baseUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers as object) } });
  const post = (path: string, token: string, body?: unknown) =>
    call(path, token, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
  const orgKey = async (orgId: string, token: string, name: string) => {
    const response = await post(`/v1/organizations/${orgId}/api-keys`, token, { name, scopes: ['read_write'] });
    expect(response.status).to.equal(201);
    return (await json(response)).data as Key;
  };

  /** An organization whose admin (a fresh person) created two keys; the owner and another admin stay. */
  async function keysOfAnAdmin() {
    const org = (await json(await post('/v1/organizations', owner.token, { name: `Quiet Streets ${randomUUID().slice(0, 8)}` }))).data as { id: string };
    const creator = await person();
    const creatorMembership = (await json(await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: creator.id, role: 'admin' }))).data as {
      id: string;
    };
    await post(`/v1/organizations/${org.id}/members`, owner.token, { user_id: otherAdmin.id, role: 'admin' });
    const keys = [
      await orgKey(org.id, creator.token, `Deploy bot ${randomUUID().slice(0, 6)}`),
      await orgKey(org.id, creator.token, `Newsletter ${randomUUID().slice(0, 6)}`),
    ];
    return { org, creator, creatorMembership, keys };
  }

  async function expectToldToRotate(orgId: string, creator: Person, keys: Key[], reason: string) {
    for (const recipient of [owner, otherAdmin]) {
      const notices = (await json(await call('/v1/notifications?limit=100', recipient.token))).data as {
        type: string;
        title: string;
        body: string;
        data: Record<string, unknown>;
      }[];
      const notice = notices.find((entry) => entry.type === 'organization.key_creator_left' && entry.data.organization_id === orgId);
      expect(notice, `a notification for ${recipient.email}`).to.not.equal(undefined);
      expect(notice!.data).to.include({ user_id: creator.id, reason });
      expect(notice!.data.keys).to.deep.equal(keys.map((key) => ({ id: key.id, name: key.name, prefix: key.prefix })));
      for (const key of keys) expect(notice!.body).to.include(key.name).and.include(key.prefix).and.not.include(key.key);
    }
    expect(
      (await json(await call('/v1/notifications?limit=100', creator.token))).data.filter(
        (entry: { type: string }) => entry.type === 'organization.key_creator_left',
      ),
    ).to.deep.equal([]);
    const mail = await eventually(
      async () => {
        for (const file of await readdir(mailDir)) {
          const text = await readFile(path.join(mailDir, file), 'utf8');
          if (text.includes(owner.email) && text.includes(keys[0]!.prefix)) return text;
        }
        return undefined;
      },
      30_000,
      'the email to the owner',
    );
    for (const key of keys) expect(mail).to.include(key.name).and.not.include(key.key);
    const audit = await testEnvironment().db.any(sql.type(z.object({ actor_id: z.string().nullable(), after: z.record(z.string(), z.unknown()) }))`
      SELECT actor_id, after FROM audit_logs WHERE action = 'organization.key_creator_left' AND target_type = 'organization' AND target_id = ${orgId}`);
    expect(audit).to.have.length(1);
    expect(audit[0]!.after).to.include({ user_id: creator.id, reason });
    expect((audit[0]!.after.keys as { id: string }[]).map((key) => key.id)).to.deep.equal(keys.map((key) => key.id));
  }

  before(async () => {
    mailDir = await mkdtemp(path.join(tmpdir(), 'rally-key-creators-mail-'));
    // What is awaited is this file's mail: emails earlier files of this shared database left pending would be mailed first.
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE notifications SET email_pending = false WHERE email_pending`);
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('key-creators'), RALLY_MAIL_DIR: mailDir, RALLY_NOTIFICATION_EMAIL_WINDOW: '1s' };
    // One after the other: on a busy machine the worker's bundling slows the API's start past its limit.
    api = await startApi(env);
    worker = await startWorker(env);
    [owner, otherAdmin] = await Promise.all([person(), person()]);
  });
  after(() => Promise.all([api.stop(), worker.stop()]));

  describe('GET /v1/organizations/{org_id}/api-keys', () => {
    it('records who created each organization key', async () => {
      const { org, creator, keys } = await keysOfAnAdmin();
      // A key rotated by the owner is the owner's: they hold the new secret.
      const rotated = (await json(await post(`/v1/organizations/${org.id}/api-keys/${keys[0]!.id}/rotate`, owner.token))).data;
      expect(rotated.new_key.created_by).to.equal(owner.id);
      // A key made with an organization key is the person's who made that key (room made within the free tier's 2).
      await call(`/v1/organizations/${org.id}/api-keys/${keys[1]!.id}`, owner.token, { method: 'DELETE' });
      const byKey = await orgKey(org.id, keys[0]!.key, 'made by a key');
      expect(byKey.created_by).to.equal(creator.id);
      // Keys made before creators were recorded answer null.
      await testEnvironment().db.query(sql.typeAlias('void')`UPDATE api_keys SET created_by = NULL WHERE id = ${keys[1]!.id}`);
      const listed = await json(await call(`/v1/organizations/${org.id}/api-keys?limit=100`, owner.token));
      const creators = Object.fromEntries(listed.data.map((entry: Key) => [entry.id, entry.created_by]));
      expect(creators).to.deep.equal({ [rotated.new_key.id]: owner.id, [keys[0]!.id]: creator.id, [keys[1]!.id]: null, [byKey.id]: creator.id });
    });
  });

  describe('when a key creator goes', () => {
    it('tells the owner and admins which keys to rotate when their creator leaves', async () => {
      const { org, creator, creatorMembership, keys } = await keysOfAnAdmin();
      expect((await call(`/v1/organizations/${org.id}/members/${creatorMembership.id}`, creator.token, { method: 'DELETE' })).status).to.equal(204);
      await expectToldToRotate(org.id, creator, keys, 'left');
    });

    it('tells the owner and admins which keys to rotate when their creator is removed', async () => {
      const { org, creator, creatorMembership, keys } = await keysOfAnAdmin();
      expect((await call(`/v1/organizations/${org.id}/members/${creatorMembership.id}`, otherAdmin.token, { method: 'DELETE' })).status).to.equal(204);
      await expectToldToRotate(org.id, creator, keys, 'removed');
    });

    it('tells the owner and admins which keys to rotate when their creator is no longer an admin', async () => {
      const { org, creator, creatorMembership, keys } = await keysOfAnAdmin();
      const demoted = await call(`/v1/organizations/${org.id}/members/${creatorMembership.id}`, owner.token, {
        method: 'PATCH',
        body: JSON.stringify({ role: 'member' }),
      });
      expect(demoted.status).to.equal(200);
      await expectToldToRotate(org.id, creator, keys, 'demoted');
    });

    it('says nothing when the person created no live key', async () => {
      const { org, creator, creatorMembership, keys } = await keysOfAnAdmin();
      for (const key of keys) await call(`/v1/organizations/${org.id}/api-keys/${key.id}`, owner.token, { method: 'DELETE' });
      expect((await call(`/v1/organizations/${org.id}/members/${creatorMembership.id}`, creator.token, { method: 'DELETE' })).status).to.equal(204);
      const notices = (await json(await call('/v1/notifications?limit=100', owner.token))).data as { data: Record<string, unknown> }[];
      expect(notices.filter((entry) => entry.data.organization_id === org.id)).to.deep.equal([]);
    });
  });
});
