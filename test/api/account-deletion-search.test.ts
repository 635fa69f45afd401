// "Nothing left of them" (issue 46): a person with one of everything deletes their account, then every text, uuid, json and array column of every table is
// searched for their email, name, slug and user id. Only the audit log (kept unchanged, by rule) may still name their id; it never holds their email or name.
// Anonymised signatures keep petition, time and country only.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { json } from '../support/http.ts';
import { bearer, createApiKey, createTestUser, establishUsers, login } from '../support/identity.ts';
import { publishedPetition } from '../support/petitions.ts';
import { startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';

const Column = z.object({ table_name: z.string(), column_name: z.string() });

/** Where each needle is found: `table.column` names. */
async function findEverywhere(needles: readonly string[]): Promise<Map<string, string[]>> {
  const { db } = testEnvironment();
  // Partitions are searched through their parent; views and the schema bookkeeping are not data.
  const columns = await db.any(sql.type(Column)`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN pg_class t ON t.relname = c.table_name AND t.relnamespace = 'public'::regnamespace
    WHERE c.table_schema = 'public' AND t.relkind IN ('r', 'p') AND NOT t.relispartition
      AND (c.data_type IN ('text', 'uuid', 'jsonb', 'json', 'character varying', 'ARRAY', 'bytea'))
    ORDER BY 1, 2
  `);
  const found = new Map<string, string[]>();
  for (const needle of needles) {
    const places: string[] = [];
    for (const { table_name, column_name } of columns) {
      const hit = await db.exists(sql.type(z.object({}))`
        SELECT 1 FROM ${sql.identifier([table_name])} WHERE position(lower(${needle}) IN lower(${sql.identifier([column_name])}::text)) > 0
      `);
      if (hit) places.push(`${table_name}.${column_name}`);
    }
    found.set(needle, places);
  }
  return found;
}

describe('account deletion leaves nothing of the person', function () {
  this.timeout(300_000);
  let api: RunningApi;
  let worker: RallyProcess;
  const taskQueue = uniqueTaskQueue('account-deletion-search');

  before(async () => {
    const env = { RALLY_TASK_QUEUE: taskQueue };
    api = await startApi(env);
    worker = await startWorker(env);
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  const call = async (method: string, route: string, token?: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api.baseUrl}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = { status: response.status, body: response.status === 204 ? undefined : await json(response) };
    if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };

  it('finds their email, name, slug and id nowhere but the audit log once the deletion completes', async () => {
    const { db } = testEnvironment();
    const marker = randomUUID().slice(0, 8);
    const name = `Zelda Quintessa ${marker}`;
    const person = await createTestUser({ name, email: `zelda-${marker}@example.test` });
    await establishUsers([person.id]);
    const token = (await login(api.baseUrl, person)).accessToken;
    const other = await createTestUser();
    const otherToken = (await login(api.baseUrl, other)).accessToken;

    // One of everything a person can have.
    await call('PATCH', '/v1/users/me', token, { bio: `I am ${name}`, avatar_url: `https://img.example.org/${person.slug}.png` });
    const theirs = await publishedPetition(api.baseUrl, otherToken);
    await call(
      'POST',
      `/v1/petitions/${theirs.id}/signatures`,
      token,
      { comment: `Signed by ${name}`, display_location: 'Lyon' },
      { 'Idempotency-Key': marker },
    );
    const comment = await call('POST', `/v1/petitions/${theirs.id}/comments`, token, { body: `${name} says hello` });
    await call('POST', `/v1/petitions/${theirs.id}/comments`, otherToken, { body: 'Hello back', parent_id: comment.body.data.id });
    const own = await publishedPetition(api.baseUrl, token, { title: 'A petition that stays after its creator leaves' });
    await call('POST', `/v1/petitions/${own.id}/updates`, token, { title: 'News', body: 'We are one step closer to the goal for everyone here.' });
    await call('POST', `/v1/petitions/${theirs.id}/signatures`, otherToken, {});
    await call('POST', '/v1/reports', token, { target_type: 'comment', target_id: comment.body.data.id, reason: 'spam', description: 'test' });
    await createApiKey(api.baseUrl, token, 'full');
    await call('POST', '/v1/media/upload-url', token, { entity_type: 'user_avatar', filename: `${person.slug}.png`, content_type: 'image/png' });
    const org = await call('POST', '/v1/organizations', otherToken, { name: `Org ${marker}` });
    await db.query(sql.typeAlias('void')`INSERT INTO organization_members (org_id, user_id, role) VALUES (${org.body.data.id}, ${person.id}, 'admin')`);
    const org2 = await call('POST', '/v1/organizations', otherToken, { name: `Second org ${marker}` });
    await call('POST', `/v1/organizations/${org2.body.data.id}/invitations`, otherToken, { email: person.email, role: 'member' });
    await db.query(sql.typeAlias('void')`
      INSERT INTO webhook_endpoints (user_id, url, events, secret_ciphertext)
      VALUES (${person.id}, ${`https://hooks.example.org/${marker}`}, '{signature.created}', '\\x00')
    `);
    await db.query(sql.typeAlias('void')`
      INSERT INTO notifications (user_id, type, title, body, data, dedupe_key) VALUES
        (${person.id}, 'petition.milestone', 'Milestone', ${`Well done ${name}`}, '{}', ${marker}),
        (${other.id}, 'comment.created', 'New comment', 'Someone commented', ${sql.jsonb({ user_id: person.id })}, ${marker})
    `);

    const asked = await call('DELETE', '/v1/users/me', token);
    expect(asked.status).to.equal(202);
    const deadline = Date.now() + 90_000;
    while ((await call('GET', `/v1/admin/users/${person.id}/deletion`, await adminToken())).body.data.status !== 'completed') {
      if (Date.now() > deadline) throw new Error('the deletion did not complete');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const found = await findEverywhere([person.email, name, person.slug, person.id]);
    expect(Object.fromEntries(found)).to.deep.equal({
      [person.email]: [],
      [name]: [],
      [person.slug]: [],
      // The audit log is append-only: it keeps who did what (the deletion's row included), never their email or name.
      [person.id]: ['audit_logs.actor_id', 'audit_logs.target_id'],
    });
    const kept = await db.one(sql.type(z.object({ signatures: z.number(), anonymous: z.number() }))`
      SELECT count(*)::int AS signatures, count(*) FILTER (WHERE user_id IS NULL AND is_anonymous AND comment IS NULL)::int AS anonymous
      FROM signatures WHERE petition_id = ${theirs.id}
    `);
    expect(kept).to.deep.equal({ signatures: 2, anonymous: 1 });
  });

  let admin: string | undefined;
  async function adminToken(): Promise<string> {
    admin ??= (await login(api.baseUrl, await createTestUser({ admin: true }))).accessToken;
    return admin;
  }
});
