// A round of milestone crossings is announced in the dispatcher's transaction: the organization's owner and admins (not a member, not the creator) are told at
// once, every crossing of the round is marked announced, and what comes back is a notice for each crossing with a signer who opted in to petition.milestone,
// which alone needs a fan-out workflow. A crossing another worker holds is not claimed, and a repeated round tells nobody twice.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { announceMilestones, claimUnsignalledMilestones } from '../../../core/organizations/milestone-notifications.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';

describe('announceMilestones (core/organizations/milestone-notifications.ts)', () => {
  const petitions: Record<'unheard' | 'withAdmin' | 'withListener' | 'held', string> = { unheard: '', withAdmin: '', withListener: '', held: '' };
  const people: Record<'creator' | 'admin' | 'member' | 'listener', string> = { creator: '', admin: '', member: '', listener: '' };

  async function insertPetition(label: string, creatorId: string, orgId: string | null): Promise<string> {
    const slug = `unheard-milestones-${label}-${randomUUID()}`;
    return testEnvironment().db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO petitions (slug, title, description, creator_id, status, org_id)
      VALUES (${slug}, 'Unheard milestones', 'A petition of the unheard milestone test, long enough for the check.', ${creatorId}, 'active', ${orgId})
      RETURNING id`);
  }

  before(async () => {
    const { db } = testEnvironment();
    const [creator, admin, member, listener, silentSigner] = await Promise.all([
      insertUserRow('unheard-creator'),
      insertUserRow('unheard-admin'),
      insertUserRow('unheard-member'),
      insertUserRow('unheard-listener'),
      insertUserRow('unheard-silent'),
    ]);
    Object.assign(people, { creator, admin, member, listener });
    const orgId = randomUUID();
    await db.query(sql.typeAlias('void')`INSERT INTO organizations (id, slug, name) VALUES (${orgId}, ${`unheard-${orgId}`}, ${`Unheard ${orgId}`})`);
    await db.query(sql.typeAlias('void')`
      INSERT INTO organization_members (org_id, user_id, role)
      VALUES (${orgId}, ${creator}, 'member'), (${orgId}, ${admin}, 'admin'), (${orgId}, ${member}, 'member')`);
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

  const announced = () =>
    testEnvironment().db.anyFirst(sql.type(z.object({ petition_id: z.string() }))`
      SELECT petition_id FROM petition_milestones
      WHERE petition_id = ANY(${sql.array(Object.values(petitions), 'uuid')}) AND signalled_at IS NOT NULL`);
  const toldOfMilestones = () =>
    testEnvironment().db.any(sql.type(z.object({ user_id: z.string(), dedupe_key: z.string() }))`
      SELECT user_id, dedupe_key FROM notifications
      WHERE user_id = ANY(${sql.array(Object.values(people), 'uuid')}) AND type = 'petition.milestone'
      ORDER BY dedupe_key`);
  const ours = <T extends { petition_id: string }>(rows: readonly T[]) => rows.filter((row) => Object.values(petitions).includes(row.petition_id));

  it('tells the admins, marks the round announced, answers the crossings signers listen for, and skips one another worker holds', async () => {
    const { db } = testEnvironment();
    let notices: Awaited<ReturnType<typeof announceMilestones>> = [];
    await db.transaction(async (otherWorker) => {
      await otherWorker.query(
        sql.type(z.object({ threshold: z.number() }))`SELECT threshold FROM petition_milestones WHERE petition_id = ${petitions.held} FOR UPDATE`,
      );
      notices = await db.transaction(async (tx) => announceMilestones(tx, ours(await claimUnsignalledMilestones(tx, 1_000))));
    });
    expect([...(await announced())].sort()).to.deep.equal([petitions.unheard, petitions.withAdmin, petitions.withListener].sort());
    expect(await toldOfMilestones()).to.deep.equal([{ user_id: people.admin, dedupe_key: `milestone:${petitions.withAdmin}:10` }]);
    expect(notices).to.deep.equal([
      {
        petitionId: petitions.withListener,
        type: 'petition.milestone',
        optedInOnly: true,
        title: '“Unheard milestones” reached 10 signatures',
        body: 'A petition you signed keeps growing. Share it again!',
        data: { petition_id: petitions.withListener, threshold: 10 },
        dedupeKey: `milestone:${petitions.withListener}:10`,
      },
    ]);
    // Once the other worker lets go, the held crossing is the only one left.
    const waiting = await db.transaction((tx) => claimUnsignalledMilestones(tx, 1_000));
    expect(ours(waiting).map((row) => row.petition_id)).to.deep.equal([petitions.held]);
  });

  it('tells nobody twice when a round is announced again', async () => {
    const { db } = testEnvironment();
    await db.query(sql.typeAlias('void')`UPDATE petition_milestones SET signalled_at = NULL WHERE petition_id = ${petitions.withAdmin}`);
    await db.transaction(async (tx) => announceMilestones(tx, ours(await claimUnsignalledMilestones(tx, 1_000))));
    expect(await toldOfMilestones()).to.deep.equal([{ user_id: people.admin, dedupe_key: `milestone:${petitions.withAdmin}:10` }]);
    expect([...(await announced())].sort()).to.deep.equal(Object.values(petitions).sort());
  });
});
