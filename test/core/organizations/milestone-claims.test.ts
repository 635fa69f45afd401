// Every worker runs a dispatcher, and each announces milestone crossings in rounds: a crossing one
// worker has claimed is skipped by the others until that worker commits, so no crossing is announced
// twice by two workers at once.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { announceMilestones, claimUnsignalledMilestones } from '../../../core/organizations/milestone-notifications.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';

describe('claimUnsignalledMilestones (core/organizations/milestone-notifications.ts)', () => {
  let petitionId: string;

  before(async () => {
    const { db } = testEnvironment();
    const subject = randomUUID();
    const creator = await insertUserRow('milestone-claims');
    petitionId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO petitions (slug, title, description, creator_id, status)
      VALUES (${`milestone-claims-${subject}`}, 'Milestone claims', 'A petition of the milestone claim test, long enough for the check.', ${creator}, 'active')
      RETURNING id`);
    // Reached long ago, so these come first in the oldest-first order whatever else the database holds.
    for (const [threshold, reachedAt] of [
      [10, '2001-01-01T00:00:00Z'],
      [100, '2001-01-02T00:00:00Z'],
    ] as const) {
      await db.query(sql.typeAlias('void')`
        INSERT INTO petition_milestones (petition_id, threshold, signature_id, reached_at)
        VALUES (${petitionId}, ${threshold}, ${randomUUID()}, ${reachedAt}::timestamptz)`);
    }
  });

  // No dispatcher of a later test may find these and announce them.
  after(async () => {
    await testEnvironment().db.query(sql.typeAlias('void')`DELETE FROM petition_milestones WHERE petition_id = ${petitionId}`);
  });

  const ours = (rows: readonly { petition_id: string; threshold: number }[]) =>
    rows.filter((row) => row.petition_id === petitionId).map((row) => row.threshold);

  it('answers the crossings oldest first, and none of them to a second worker while the first holds them', async () => {
    const { db } = testEnvironment();
    await db.transaction(async (first) => {
      expect(ours(await claimUnsignalledMilestones(first, 1_000))).to.deep.equal([10, 100]);
      const second = await db.transaction((tx) => claimUnsignalledMilestones(tx, 1_000));
      expect(ours(second)).to.deep.equal([]);
    });
  });

  it('answers a crossing again once the worker that held it let it go unannounced, and never once it is announced', async () => {
    const { db } = testEnvironment();
    await db.transaction(async (tx) => {
      const claimed = await claimUnsignalledMilestones(tx, 1_000);
      expect(ours(claimed)).to.deep.equal([10, 100]);
      await announceMilestones(
        tx,
        claimed.filter((crossing) => crossing.petition_id === petitionId && crossing.threshold === 10),
      );
    });
    expect(ours(await db.transaction((tx) => claimUnsignalledMilestones(tx, 1_000)))).to.deep.equal([100]);
  });
});
