// The petition workflow on a real worker: each transition path, the validator's refusals, and the
// histories the replay suite keeps.
import { expect } from 'chai';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { insertPetition } from '../../core/petitions/queries.ts';
import { sql } from '../../db/sql.ts';
import { closeUpdate, petitionDeletedSignal, petitionLifecycle, publishUpdate, statusQuery, victoryUpdate } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createTestUser } from '../support/identity.ts';
import { DESCRIPTION } from '../support/petitions.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';
import { z } from 'zod';

describe('workflow petitionLifecycle', function () {
  this.timeout(60_000);
  const taskQueue = uniqueTaskQueue('lifecycle');
  let creatorId: string;
  const actor = () => ({ type: 'user' as const, id: creatorId });

  before(async () => {
    creatorId = (await createTestUser()).id;
  });

  async function startFor(label: string) {
    const { db, temporal } = testEnvironment();
    const petitionId = await insertPetition(db, {
      slug: `lifecycle-${label}-${Date.now()}`,
      title: `Lifecycle ${label} petition`,
      description: DESCRIPTION,
      creatorId,
      orgId: null,
      categoryId: null,
      tags: [],
      imageUrl: null,
      signatureGoal: null,
      visibility: 'public',
      accessCode: null,
      locationCity: null,
      locationRegion: null,
      locationCountry: null,
      signaturePrivacy: 'public',
    });
    const handle = await temporal.client.workflow.start(petitionLifecycle, {
      taskQueue,
      workflowId: `petition-${petitionId}`,
      args: [{ petitionId, status: 'draft' }],
    });
    return { petitionId, handle };
  }

  const statusOf = async (petitionId: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM petitions WHERE id = ${petitionId}`);

  it('publishes then closes, refusing a second publish in the validator', async () => {
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(async () => {
      const { petitionId, handle } = await startFor('closed');
      expect(await handle.executeUpdate(publishUpdate, { args: [{ actor: actor() }] })).to.deep.equal({ petitionId, status: 'active' });
      const refused = await handle.executeUpdate(publishUpdate, { args: [{ actor: actor() }] }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(WorkflowUpdateFailedError);
      expect(await handle.query(statusQuery)).to.equal('active');
      await handle.executeUpdate(closeUpdate, { args: [{ actor: actor() }] });
      expect(await handle.result()).to.equal('closed');
      expect(await statusOf(petitionId)).to.equal('closed');
      await captureHistory('petition-lifecycle-closed', handle);
    });
  });

  it('carries on after eviction from a worker cache smaller than its petitions (RALLY_WORKER_CACHED_WORKFLOWS)', async () => {
    // Five petitions on a worker that keeps two: each publish and close finds its workflow evicted
    // by the others and replays it from history first.
    const worker = await createTestWorker(taskQueue, {}, { maxCachedWorkflows: 2 });
    await worker.runUntil(async () => {
      const started = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((label) => startFor(`evicted-${label}`)));
      for (const { petitionId, handle } of started) {
        expect(await handle.executeUpdate(publishUpdate, { args: [{ actor: actor() }] })).to.deep.equal({ petitionId, status: 'active' });
      }
      for (const { handle } of started) expect(await handle.query(statusQuery)).to.equal('active');
      for (const { petitionId, handle } of started) {
        await handle.executeUpdate(closeUpdate, { args: [{ actor: actor() }] });
        expect(await handle.result()).to.equal('closed');
        expect(await statusOf(petitionId)).to.equal('closed');
      }
    });
  });

  it('publishes then wins, starting the signer notifications', async () => {
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(async () => {
      const { petitionId, handle } = await startFor('victory');
      await handle.executeUpdate(publishUpdate, { args: [{ actor: actor() }] });
      await handle.executeUpdate(victoryUpdate, { args: [{ actor: actor(), victoryMessage: 'Done' }] });
      expect(await handle.result()).to.equal('victory');
      const followUp = testEnvironment().temporal.client.workflow.getHandle(`signer-notifications-victory-${petitionId}`);
      expect((await followUp.describe()).type).to.equal('notifyPetitionSigners');
      await followUp.result();
      await captureHistory('petition-lifecycle-victory', handle);
    });
  });

  it('ends when its draft is deleted', async () => {
    const worker = await createTestWorker(taskQueue);
    await worker.runUntil(async () => {
      const { handle } = await startFor('deleted');
      await handle.signal(petitionDeletedSignal);
      expect(await handle.result()).to.equal('deleted');
      await captureHistory('petition-lifecycle-deleted-draft', handle);
    });
  });
});
