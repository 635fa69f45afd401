// The moderation workflows on a real worker: a comment hidden once five distinct users reported it
// (the default threshold) and then decided on; a dry-run signature invalidation; a petition moved
// under review, released and closed by an admin. Each run's history joins the replay suite.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import {
  adminCloseUpdate,
  decideUpdate,
  holdForReviewUpdate,
  invalidateSignatures,
  moderateTarget,
  moderationWorkflowId,
  petitionLifecycle,
  releaseFromReviewUpdate,
  reportedSignal,
} from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow } from '../support/events.ts';
import { createTestUser, establishUsers } from '../support/identity.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

describe('moderation workflows', function () {
  this.timeout(120_000);
  const taskQueue = uniqueTaskQueue('moderation');
  const db = () => testEnvironment().db;
  const adminAudit = (adminId: string) => ({ actorType: 'user' as const, actorId: adminId, credential: 'access_token:test', requestId: 'test-request' });

  it('hides a comment at the fifth distinct reporter, then ends once a reviewer dismissed the reports', async () => {
    const { temporal } = testEnvironment();
    const [author, admin] = await Promise.all([createTestUser(), createTestUser({ admin: true })]);
    const petitionId = await createPetitionRow(author.id);
    const commentId = await db().oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO comments (petition_id, user_id, body) VALUES (${petitionId}, ${author.id}, 'Reported comment') RETURNING id
    `);
    const target = { type: 'comment' as const, id: commentId };
    const reporters = await Promise.all(Array.from({ length: 5 }, () => createTestUser()));
    // People whose reports count: verified and older than RALLY_REPORT_MIN_ACCOUNT_AGE.
    await establishUsers(reporters.map((reporter) => reporter.id));
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(async () => {
      let handle;
      const reportIds: string[] = [];
      for (const reporter of reporters) {
        const reportId = await db().oneFirst(sql.type(z.object({ id: z.string() }))`
          INSERT INTO reports (reporter_id, target_type, target_id, reason) VALUES (${reporter.id}, 'comment', ${commentId}, 'spam') RETURNING id
        `);
        reportIds.push(reportId);
        handle = await temporal.client.workflow.signalWithStart(moderateTarget, {
          taskQueue,
          workflowId: moderationWorkflowId(target),
          args: [{ target }],
          signal: reportedSignal,
          signalArgs: [{ reportId }],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
      }
      const hidden = async () => db().oneFirst(sql.type(z.object({ is_hidden: z.boolean() }))`SELECT is_hidden FROM comments WHERE id = ${commentId}`);
      const deadline = Date.now() + 30_000;
      while (!(await hidden()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await hidden()).to.equal(true);
      const outcome = await handle!.executeUpdate(decideUpdate, {
        args: [{ reportId: reportIds[0]!, action: 'dismiss', note: null, audit: adminAudit(admin.id) }],
      });
      expect(outcome.report).to.include({ status: 'dismissed', action: 'dismiss' });
      expect(await handle!.result()).to.deep.equal({ target, hidden: true, decisions: 1 });
      await captureHistory('moderation-comment-hidden-then-dismissed', handle!);
    });
  });

  it('counts matching signatures in a dry run without changing anything', async () => {
    const { temporal } = testEnvironment();
    const [creator, admin] = await Promise.all([createTestUser(), createTestUser({ admin: true })]);
    const petitionId = await createPetitionRow(creator.id);
    await db().query(sql.typeAlias('void')`
      WITH signers AS (
        INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
        SELECT 'bulk', ${petitionId} || g, 'wf' || g || CASE WHEN g % 2 = 0 THEN '@spam.test' ELSE '@ok.test' END, 'Signer', 'wf-' || ${petitionId} || '-' || g
        FROM generate_series(1, 30) AS g RETURNING id
      )
      INSERT INTO signatures (petition_id, user_id) SELECT ${petitionId}, id FROM signers
    `);
    const invalidationId = await db().oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO signature_invalidations (petition_id, filter, dry_run, requested_by) VALUES (${petitionId},
      '{"email_domain":"spam.test"}', true, ${admin.id}) RETURNING id
    `);
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(invalidateSignatures, {
        taskQueue,
        workflowId: `signature-invalidation-${invalidationId}`,
        args: [
          {
            invalidationId,
            petitionId,
            filter: { networkHashes: null, emailDomain: 'spam.test', since: null, until: null },
            dryRun: true,
            audit: adminAudit(admin.id),
          },
        ],
      });
      expect(await handle.result()).to.deep.equal({ invalidationId, matched: 15, signatureCount: null });
      await captureHistory('signature-invalidation-dry-run', handle);
    });
    expect(await db().oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM signatures WHERE petition_id = ${petitionId}`)).to.equal(
      30,
    );
  });

  it('moves a petition under review, releases it and closes it as an admin', async () => {
    const { temporal } = testEnvironment();
    const [creator, admin] = await Promise.all([createTestUser(), createTestUser({ admin: true })]);
    const petitionId = await createPetitionRow(creator.id);
    const request = (action: 'petition.under_review' | 'petition.restored' | 'petition.closed_by_admin') => ({
      actor: { type: 'user' as const, id: admin.id },
      audit: { context: adminAudit(admin.id), action },
    });
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(petitionLifecycle, {
        taskQueue,
        workflowId: `petition-${petitionId}`,
        args: [{ petitionId, status: 'active' }],
      });
      expect((await handle.executeUpdate(holdForReviewUpdate, { args: [request('petition.under_review')] })).status).to.equal('under_review');
      expect((await handle.executeUpdate(releaseFromReviewUpdate, { args: [request('petition.restored')] })).status).to.equal('active');
      await handle.executeUpdate(holdForReviewUpdate, { args: [request('petition.under_review')] });
      expect((await handle.executeUpdate(adminCloseUpdate, { args: [request('petition.closed_by_admin')] })).status).to.equal('closed');
      expect(await handle.result()).to.equal('closed');
      await captureHistory('petition-lifecycle-under-review-then-closed', handle);
    });
    const audited = await db().anyFirst(
      sql.type(z.object({ action: z.string() }))`SELECT action FROM audit_logs WHERE target_id = ${petitionId} ORDER BY created_at`,
    );
    expect(audited).to.deep.equal(['petition.under_review', 'petition.restored', 'petition.under_review', 'petition.closed_by_admin']);
  });
});
