// Listing whom to invite (core/decision-makers/invitations.ts). Adding a decision maker starts the
// invitation workflow inside the transaction that inserts them: the list must wait for that commit,
// or a workflow that runs first finds nobody and the invitation is never sent.
import { expect } from 'chai';
import pg from 'pg';
import { listUninvitedDecisionMakers } from '../../../core/decision-makers/invitations.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow, eventually } from '../../support/events.ts';
import { createTestUser } from '../../support/identity.ts';

describe('decision makers to invite (core/decision-makers/invitations.ts)', () => {
  it('lists a decision maker added by a transaction still open once it commits, not before', async () => {
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const request = new pg.Client({ connectionString: testEnvironment().databaseUrl });
    await request.connect();
    try {
      // What adding one does: the petition FOR SHARE, the row inserted, the workflow started, then the commit.
      await request.query('BEGIN');
      await request.query('SELECT id FROM petitions WHERE id = $1 FOR SHARE', [petitionId]);
      const { rows } = await request.query<{ id: string }>(
        `INSERT INTO petition_decision_makers (petition_id, name, title, email) VALUES ($1, 'Ada Mayor', 'Mayor', 'mayor@city.example') RETURNING id`,
        [petitionId],
      );
      let listed: string[] | undefined;
      const listing = listUninvitedDecisionMakers(testEnvironment().db, petitionId, [rows[0]!.id]).then((ids) => (listed = ids));
      // It waits on the open transaction's lock, without an answer, until the commit.
      await eventually(
        async () => {
          const { rows: waiting } = await request.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%'`,
          );
          return waiting.length > 0 || listed !== undefined || undefined;
        },
        10_000,
        'the list to wait on the lock',
      );
      expect(listed, 'listed before the commit').to.equal(undefined);
      await request.query('COMMIT');
      expect(await listing).to.deep.equal([rows[0]!.id]);
    } finally {
      await request.end();
    }
  });
});
