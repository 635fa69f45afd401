// Listing whom to invite (core/decision-makers/invitations.ts). Adding a decision maker starts the invitation workflow
// inside the transaction that inserts them: the list waits for that commit, or a workflow that ran first would find
// nobody and the invitation would never be sent.
import { expect } from 'chai';
import { z } from 'zod';
import { holdUntilCommit } from '../../../db/commit-barrier.ts';
import { sql } from '../../../db/sql.ts';
import { invitationBarrier, listUninvitedDecisionMakers } from '../../../core/decision-makers/invitations.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow } from '../../support/events.ts';
import { createTestUser } from '../../support/identity.ts';
import { waitingOnBarrier, whileUncommitted } from '../../support/uncommitted.ts';

describe('decision makers to invite (core/decision-makers/invitations.ts)', () => {
  it('lists a decision maker added by a transaction still open once it commits, not before', async () => {
    const petitionId = await createPetitionRow((await createTestUser()).id);
    let listed: string[] | undefined;
    let listing: Promise<unknown> | undefined;
    const added = await whileUncommitted(
      async (tx) => {
        const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
          INSERT INTO petition_decision_makers (petition_id, name, title, email) VALUES (${petitionId}, 'Ada Mayor', 'Mayor', 'mayor@city.example')
          RETURNING id`);
        await holdUntilCommit(tx, invitationBarrier(petitionId));
        return id;
      },
      async (id) => {
        listing = listUninvitedDecisionMakers(testEnvironment().db, petitionId, [id]).then((ids) => (listed = ids));
        await waitingOnBarrier(() => listed !== undefined);
        expect(listed, 'listed before the commit').to.equal(undefined);
      },
      'commit',
    );
    await listing;
    expect(listed).to.deep.equal([added]);
  });
});
