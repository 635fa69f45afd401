// Reading an organization invitation for its email (core/organizations/invitation-delivery.ts). The invitation workflow
// starts inside the transaction that records the invitation: the read waits for that commit, or a workflow that ran
// first would find nothing, end as "gone" and never send the invitation.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { holdUntilCommit } from '../../../db/commit-barrier.ts';
import { sql } from '../../../db/sql.ts';
import { findInvitationForEmail, organizationInvitationBarrier } from '../../../core/organizations/invitation-delivery.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';
import { waitingOnBarrier, whileUncommitted } from '../../support/uncommitted.ts';

describe('an organization invitation read for its email (core/organizations/invitation-delivery.ts)', () => {
  it('is read once the request that recorded it commits, not before', async () => {
    const admin = await createTestUser();
    let found: { id: string } | null | undefined;
    let reading: Promise<unknown> | undefined;
    const invitationId = await whileUncommitted(
      async (tx) => {
        const orgId = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
          INSERT INTO organizations (slug, name) VALUES (${`night-buses-${randomUUID().slice(0, 8)}`}, 'Night Buses') RETURNING id`);
        const id = await tx.oneFirst(sql.type(z.object({ id: z.string() }))`
          INSERT INTO organization_invitations (org_id, email, role, invited_by, expires_at)
          VALUES (${orgId}, 'newcomer@night-buses.example', 'member', ${admin.id}, now() + interval '7 days') RETURNING id`);
        await holdUntilCommit(tx, organizationInvitationBarrier(id));
        return id;
      },
      async (id) => {
        reading = findInvitationForEmail(testEnvironment().db, id).then((row) => (found = row));
        await waitingOnBarrier(() => found !== undefined);
        expect(found, 'read before the commit').to.equal(undefined);
      },
      'commit',
    );
    await reading;
    expect(found).to.include({ id: invitationId, email: 'newcomer@night-buses.example', org_name: 'Night Buses' });
  });
});
