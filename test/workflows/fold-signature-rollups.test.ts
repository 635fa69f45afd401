// The rollup fold against a real worker process that is killed in the middle of a run. The fold is held deterministically: a lock on the hourly rollup table
// keeps its first batch waiting while the worker dies. The restarted worker's retry (after the heartbeat timeout) must finish the backlog, and every signature
// must be counted exactly once, whichever attempt folded it.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import pg from 'pg';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { foldSignatureRollups } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow, eventually } from '../support/events.ts';
import { createTestUser } from '../support/identity.ts';
import { startWorker, type RallyProcess } from '../support/processes.ts';
import { captureHistory, uniqueTaskQueue } from '../support/workflows.ts';

// temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
const ACTIVITY_STARTED = 2;
// More than one batch of the workflow (5,000), so the fold must resume part-way.
const SIGNATURES = 12_000;

describe('workflow foldSignatureRollups', function () {
  this.timeout(240_000);
  let worker: RallyProcess | undefined;
  after(async () => {
    await worker?.stop();
  });

  it('resumes after the worker is killed mid-fold without counting any signature twice', async () => {
    const { db, databaseUrl, temporal } = testEnvironment();
    const petitionId = await createPetitionRow((await createTestUser()).id, 'A petition signed in bulk for the fold');
    const prefix = `fold-${randomUUID().slice(0, 8)}`;
    await db.query(sql.typeAlias('void')`
      WITH signers AS (
        INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
        SELECT 'test', ${prefix} || n, ${prefix} || n || '@example.test', 'Signer ' || n, ${prefix} || '-' || n FROM generate_series(1, ${SIGNATURES}) AS n
        RETURNING id, slug
      )
      INSERT INTO signatures (petition_id, user_id, country, created_at)
      SELECT ${petitionId}, id, CASE WHEN abs(hashtext(slug)) % 2 = 0 THEN 'FR' ELSE 'DE' END, now() - make_interval(hours => abs(hashtext(slug)) % 48)
      FROM signers
    `);

    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE petition_signatures_hourly IN SHARE MODE');
    const env = { RALLY_TASK_QUEUE: uniqueTaskQueue('fold') };
    let handle: WorkflowHandle<typeof foldSignatureRollups> | undefined;
    try {
      worker = await startWorker(env);
      handle = await temporal.client.workflow.start(foldSignatureRollups, {
        taskQueue: env.RALLY_TASK_QUEUE,
        workflowId: `fold-signature-rollups-test-${prefix}`,
      });
      const started = handle;
      await eventually(
        async () => {
          const { raw } = await started.describe();
          return raw.pendingActivities?.some((activity) => activity.state === ACTIVITY_STARTED) || undefined;
        },
        60_000,
        'the fold activity to be running',
      );
      await worker.stop('SIGKILL');
    } finally {
      await blocker.query('COMMIT');
      await blocker.end();
    }
    worker = await startWorker(env);
    if (!handle) throw new Error('the workflow did not start');
    const result = await handle.result();
    expect(result.drained).to.equal(true);

    const folded = await db.one(sql.type(z.object({ hourly: z.number(), countries: z.number(), sources: z.number(), queued: z.number() }))`
      SELECT (SELECT COALESCE(sum(signatures), 0)::int FROM petition_signatures_hourly WHERE petition_id = ${petitionId}) AS hourly,
        (SELECT COALESCE(sum(signatures), 0)::int FROM petition_signature_breakdown WHERE petition_id = ${petitionId} AND dimension = 'country') AS countries,
        (SELECT COALESCE(sum(signatures), 0)::int FROM petition_signature_breakdown WHERE petition_id = ${petitionId} AND dimension = 'source') AS sources,
        (SELECT count(*)::int FROM signature_rollup_queue WHERE petition_id = ${petitionId}) AS queued
    `);
    expect(folded).to.deep.equal({ hourly: SIGNATURES, countries: SIGNATURES, sources: SIGNATURES, queued: 0 });

    const { events } = await handle.fetchHistory();
    const attempts = events!.map((event) => event.activityTaskStartedEventAttributes?.attempt).filter((attempt) => attempt !== undefined && attempt !== null);
    expect(Math.max(...attempts.map(Number))).to.be.at.least(2);
    await captureHistory('fold-signature-rollups-after-worker-kill', handle);
  });
});
