// A crossing that nobody but the creator hears of (no organization admin to tell, no signer who opted in to petition.milestone) is settled by the dispatcher in
// one statement, without a signal to the petition's workflow; a crossing somebody hears of is left for the signal, and so is one another worker holds.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { claimUnsignalledMilestones, settleUnheardMilestones } from '../../../core/organizations/milestone-notifications.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';

describe('settleUnheardMilestones (core/organizations/milestone-notifications.ts)', () => {
  const petitions: Record<'unheard' | 'withAdmin' | 'withListener' | 'held', string> = { unheard: '', withAdmin: '', withListener: '', held: '' };

  async function insertPetition(label: string, creatorId: string, orgId: string | null): Promise<string> {
    const slug = `unheard-milestones-${label}-${randomUUID()}`;
    return testEnvironment().db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO petitions (slug, title, description, creator_id, status, org_id)
      VALUES (${slug}, 'Unheard milestones', 'A petition of the unheard milestone test, long enough for the check.', ${creatorId}, 'active', ${orgId})
      RETURNING id`);
  }

  before(async () => {
    const { db } = testEnvironment();
    const [creator, admin, listener, silentSigner] = await Promise.all([
      insertUserRow('unheard-creator'),
      insertUserRow('unheard-admin'),
      insertUserRow('unheard-listener'),
      insertUserRow('unheard-silent'),
    ]);
    const orgId = randomUUID();
    await db.query(sql.typeAlias('void')`INSERT INTO organizations (id, slug, name) VALUES (${orgId}, ${`unheard-${orgId}`}, ${`Unheard ${orgId}`})`);
    await db.query(sql.typeAlias('void')`
      INSERT INTO organization_members (org_id, user_id, role) VALUES (${orgId}, ${creator}, 'member'), (${orgId}, ${admin}, 'admin')`);
    await db.query(sql.typeAlias('void')`
      UPDATE users SET notification_prefs = '{"petition.milestone": {"in_app": true}}'::jsonb WHERE id = ${listener}`);
    // A creator who opted in is told through the outbox, and a member who is no admin is not told at all.
    await db.query(sql.typeAlias('void')`
      UPDATE users SET notification_prefs = '{"petition.milestone": {"in_app": true}}'::jsonb WHERE id = ${creator}`);
    petitions.unheard = await insertPetition('unheard', creator, null);
    petitions.withAdmin = await insertPetition('admin', creator, orgId);
    petitions.withListener = await insertPetition('listener', creator, null);
    petitions.held = await insertPetition('held', creator, null);
    await db.query(sql.typeAlias('void')`
      INSERT INTO signatures (petition_id, user_id) VALUES
        (${petitions.unheard}, ${silentSigner}), (${petitions.unheard}, ${creator}), (${petitions.withListener}, ${listener})`);
    // Reached long ago, so these come first in the oldest-first order whatever else the database holds.
    for (const [at, petitionId] of Object.values(petitions).entries()) {
      await db.query(sql.typeAlias('void')`
        INSERT INTO petition_milestones (petition_id, threshold, signature_id, reached_at)
        VALUES (${petitionId}, 10, ${randomUUID()}, ${`2001-01-0${at + 1}T00:00:00Z`}::timestamptz)`);
    }
  });

  after(async () => {
    await testEnvironment().db.query(sql.typeAlias('void')`
      DELETE FROM petition_milestones WHERE petition_id = ANY(${sql.array(Object.values(petitions), 'uuid')})`);
  });

  const handedOver = () =>
    testEnvironment().db.anyFirst(sql.type(z.object({ petition_id: z.string() }))`
      SELECT petition_id FROM petition_milestones
      WHERE petition_id = ANY(${sql.array(Object.values(petitions), 'uuid')}) AND signalled_at IS NOT NULL`);

  it('settles the crossings nobody hears of, leaving those with an admin or a listening signer, and skips one another worker holds', async () => {
    const { db } = testEnvironment();
    await db.transaction(async (otherWorker) => {
      await otherWorker.query(
        sql.type(z.object({ threshold: z.number() }))`SELECT threshold FROM petition_milestones WHERE petition_id = ${petitions.held} FOR UPDATE`,
      );
      await db.transaction((tx) => settleUnheardMilestones(tx, 1_000));
    });
    expect(await handedOver()).to.deep.equal([petitions.unheard]);
    await db.transaction((tx) => settleUnheardMilestones(tx, 1_000));
    expect([...(await handedOver())].sort()).to.deep.equal([petitions.unheard, petitions.held].sort());
    // What is left is for the signal, as before.
    const waiting = await db.transaction((tx) => claimUnsignalledMilestones(tx, 1_000));
    const ours = waiting.map((row) => row.petition_id).filter((id) => Object.values(petitions).includes(id));
    expect(ours).to.deep.equal([petitions.withAdmin, petitions.withListener]);
  });

  it('answers how many it settled, at most the limit', async () => {
    const { db } = testEnvironment();
    await db.query(
      sql.typeAlias(
        'void',
      )`UPDATE petition_milestones SET signalled_at = NULL WHERE petition_id = ANY(${sql.array([petitions.unheard, petitions.held], 'uuid')})`,
    );
    expect(await db.transaction((tx) => settleUnheardMilestones(tx, 1))).to.equal(1);
    expect(await handedOver()).to.deep.equal([petitions.unheard]);
  });
});
