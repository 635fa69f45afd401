// Issue 46: nothing is half-done after kill -9 of the worker. A real worker process is killed while the deletion is half-way through a person's comments (a
// lock on their last comment holds the second batch) and while an export is building (a lock on the comments table holds its read); a new worker must finish
// both: nothing identifying left, counts unchanged, exactly one archive, a once-only link.
import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import pg from 'pg';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { accountDeletionWorkflowId, accountExportWorkflowId } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { json } from '../support/http.ts';
import { bearer, createTestUser, login, type TestUser } from '../support/identity.ts';
import { PUBLIC_URL, startApi, startWorker, type RallyProcess, type RunningApi } from '../support/processes.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { uniqueTaskQueue } from '../support/workflows.ts';
import { readZip } from '../support/zip.ts';

// temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED, as a number or by name.
const STARTED = [2, 'PENDING_ACTIVITY_STATE_STARTED'];
// More than one batch of the deletion (500 rows), so it is killed with part of a step done.
const PETITIONS = 600;

const Counts = z.object({ signatures: z.number(), fr: z.number(), named: z.number(), comments: z.number(), erased: z.number() });

describe('account deletion and export after kill -9 of the worker', function () {
  this.timeout(180_000);
  let api: RunningApi;
  let worker: RallyProcess;
  let mail: MailCatcher;
  let mediaDir: string;
  let env: Record<string, string>;
  let petitions: readonly string[];
  const db = () => testEnvironment().db;

  const call = (method: string, route: string, token?: string) => fetch(`${api.baseUrl}${route}`, { method, headers: token ? bearer(token) : {} });
  /** Waits for the named activity to be running; a timeout says what the workflow was doing instead. */
  const startedActivity = async (handle: WorkflowHandle, name: string) => {
    let seen = 'nothing';
    await eventually(
      async () => {
        const { raw } = await handle.describe();
        const pending = raw.pendingActivities ?? [];
        seen = JSON.stringify(pending.map((activity) => ({ name: activity.activityType?.name, state: activity.state, attempt: activity.attempt })));
        return pending.some((activity) => activity.activityType?.name === name && STARTED.includes(activity.state as never)) || undefined;
      },
      60_000,
      `${name} to be running`,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; pending activities: ${seen}`);
    });
  };
  /** Holds a lock from another connection while `whileHeld` kills the worker; released after. */
  const holding = async (lock: string, params: string[], whileHeld: () => Promise<void>) => {
    const blocker = new pg.Client({ connectionString: testEnvironment().databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(lock, params);
      await whileHeld();
    } finally {
      await blocker.query('COMMIT');
      await blocker.end();
    }
  };
  const attempts = async (handle: WorkflowHandle) => {
    const { events } = await handle.fetchHistory();
    return Math.max(...events!.map((event) => Number(event.activityTaskStartedEventAttributes?.attempt ?? 0)));
  };
  /** A person who signed every petition with their details and commented on each. */
  const signerOfEverything = async (name: string): Promise<TestUser & { token: string }> => {
    const user = await createTestUser({ name });
    await db().query(sql.typeAlias('void')`
      INSERT INTO signatures (petition_id, user_id, comment, city, country, latitude, longitude, display_location, source)
      SELECT p, ${user.id}, 'Count me in', 'Lyon', CASE WHEN n % 3 = 0 THEN 'FR' ELSE 'BE' END, 45.7, 4.8, 'Lyon', 'widget'
      FROM unnest(${sql.array(petitions, 'uuid')}) WITH ORDINALITY AS t(p, n)
    `);
    await db().query(sql.typeAlias('void')`
      INSERT INTO comments (petition_id, user_id, body) SELECT p, ${user.id}, ${`Signed by ${name}`} FROM unnest(${sql.array(petitions, 'uuid')}) AS p
    `);
    return { ...user, token: (await login(api.baseUrl, user)).accessToken };
  };

  before(async () => {
    mediaDir = await mkdtemp(path.join(tmpdir(), 'rally-account-data-crash-'));
    mail = await startMailCatcher();
    env = { RALLY_TASK_QUEUE: uniqueTaskQueue('account-data-crash'), RALLY_MEDIA_DIR: mediaDir, SMTP_URL: mail.url };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    const creator = await createTestUser();
    petitions = await db().anyFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO petitions (slug, title, description, creator_id, status)
      SELECT 'crash-' || gen_random_uuid(), 'A petition signed before the crash ' || n,
        'A description long enough to satisfy the fifty character minimum rule.', ${creator.id}, 'active'
      FROM generate_series(1, ${PETITIONS}) AS n
      RETURNING id
    `);
  });
  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await mail?.stop();
    await rm(mediaDir, { recursive: true, force: true });
  });

  it('a deletion killed mid-step finishes on a new worker with nothing identifying left and counts unchanged', async () => {
    const person = await signerOfEverything('Ada Lovelace');
    const counts = () =>
      db().one(sql.type(Counts)`
        SELECT count(*)::int AS signatures, (count(*) FILTER (WHERE country = 'FR'))::int AS fr,
          (count(*) FILTER (WHERE user_id IS NOT NULL OR comment IS NOT NULL OR city IS NOT NULL OR latitude IS NOT NULL OR source IS NOT NULL))::int AS named,
          (SELECT count(*)::int FROM comments WHERE petition_id = ANY (${sql.array(petitions, 'uuid')})) AS comments,
          (SELECT count(*)::int FROM comments WHERE petition_id = ANY (${sql.array(petitions, 'uuid')}) AND body = '[deleted]') AS erased
        FROM signatures WHERE petition_id = ANY (${sql.array(petitions, 'uuid')})
      `);
    expect(await counts()).to.deep.equal({ signatures: PETITIONS, fr: PETITIONS / 3, named: PETITIONS, comments: PETITIONS, erased: 0 });

    const handle = testEnvironment().temporal.client.workflow.getHandle(accountDeletionWorkflowId(person.id));
    // The comment last in the step's order: its first batch goes through, its second waits on the lock.
    const last = 'SELECT id FROM comments WHERE user_id = $1 ORDER BY user_id, id DESC LIMIT 1 FOR UPDATE';
    await holding(last, [person.id], async () => {
      expect((await call('DELETE', '/v1/users/me', person.token)).status).to.equal(202);
      await eventually(async () => (await counts()).erased >= 500 || undefined, 60_000, 'the first batch of comments to be erased');
      await startedActivity(handle, 'eraseAccountBatch');
      const midway = await counts();
      expect(midway.erased, 'half-way through the comments').to.be.within(1, PETITIONS - 1);
      await worker.stop('SIGKILL');
    });
    worker = await startWorker(env);

    // As long as the export's emailed link below: the killed batch is retried within seconds, not minutes.
    await eventually(async () => (await handle.describe()).status.name === 'COMPLETED' || undefined, 60_000, 'the deletion to complete');
    expect(await handle.result()).to.include({ step: 'done' });
    expect(await attempts(handle), 'the killed batch ran again').to.be.at.least(2);
    expect(await counts()).to.deep.equal({ signatures: PETITIONS, fr: PETITIONS / 3, named: 0, comments: PETITIONS, erased: PETITIONS });
    const left = await db().one(sql.type(z.object({ users: z.number(), events: z.number(), comments: z.number() }))`
      SELECT (SELECT count(*)::int FROM users WHERE id = ${person.id} OR email = ${person.email}) AS users,
        (SELECT count(*)::int FROM events WHERE actor_id = ${person.id} OR data::text LIKE ${`%${person.id}%`}) AS events,
        (SELECT count(*)::int FROM comments WHERE body LIKE '%Ada Lovelace%' OR user_id = ${person.id}) AS comments
    `);
    expect(left).to.deep.equal({ users: 0, events: 0, comments: 0 });
  });

  it('an export killed mid-build finishes on a new worker: exactly one archive, and its link works once', async () => {
    const person = await signerOfEverything('Mary Somerville');
    let exportId = '';
    await holding('LOCK TABLE comments IN ACCESS EXCLUSIVE MODE', [], async () => {
      const started = await call('POST', '/v1/users/me/export', person.token);
      expect(started.status).to.equal(202);
      exportId = (await json(started)).data.id;
      await startedActivity(testEnvironment().temporal.client.workflow.getHandle(accountExportWorkflowId(exportId)), 'writeAccountExport');
      await worker.stop('SIGKILL');
    });
    const building = await db().one(sql.type(z.object({ status: z.string(), storage_key: z.string().nullable() }))`
      SELECT status, storage_key FROM account_exports WHERE id = ${exportId}`);
    expect(building).to.deep.equal({ status: 'running', storage_key: null });
    worker = await startWorker(env);

    const message = await mail.waitFor(person.email, /data export is ready/, 60_000);
    const link = /https?:\/\/\S+\/v1\/account-exports\/[0-9a-f-]{36}\/download\?token=[A-Za-z0-9_-]{43}/.exec(message.text)?.[0];
    if (!link) throw new Error(`no export link in:\n${message.raw}`);
    const archives = (await readdir(mediaDir, { recursive: true })).filter((file) => file.endsWith('.zip'));
    expect(archives).to.deep.equal([path.join('exports', `${exportId}.zip`)]);
    const download = await call('GET', link.replace(PUBLIC_URL, ''));
    expect(download.status).to.equal(200);
    const files = readZip(Buffer.from(await download.arrayBuffer()));
    expect(JSON.parse(files.get('signatures.json')!.toString('utf8'))).to.have.length(PETITIONS);
    expect(JSON.parse(files.get('comments.json')!.toString('utf8'))).to.have.length(PETITIONS);
    expect((await call('GET', link.replace(PUBLIC_URL, ''))).status, 'the link works once').to.equal(410);

    const exports = await db().anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM account_exports WHERE user_id = ${person.id}`);
    expect(exports).to.deep.equal([exportId]);
    const handle = testEnvironment().temporal.client.workflow.getHandle(accountExportWorkflowId(exportId));
    expect(await attempts(handle), 'the killed build ran again').to.be.at.least(2);
  });
});
