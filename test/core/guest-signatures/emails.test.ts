// Which guest confirmation emails say "you have already signed" (core/guest-signatures/emails.ts),
// against the real database: only a signature by the user who owns the address counts, and an account
// whose address is not verified owns nothing (issue 42), so it cannot make the owner's form say so.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { lockDueConfirmations } from '../../../core/guest-signatures/emails.ts';
import { submitGuestSignatures } from '../../../core/guest-signatures/submit.ts';
import { upsertUserFromClaims } from '../../../core/users/queries.ts';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow } from '../../support/events.ts';
import { guestForm } from '../../support/guest-signatures.ts';
import { createTestUser } from '../../support/identity.ts';

const SETTINGS = { encryptionKey: 'ef'.repeat(32), confirmationTtlMs: 60 * 60_000, emailsPerAddressPerDay: 20 };

/** Whether the due confirmation of `email` on the petition says it had signed already (read, then left due). */
async function saysAlreadySigned(petitionId: string, email: string): Promise<boolean> {
  return testEnvironment().db.transaction(async (tx) => {
    const due = await lockDueConfirmations(tx, 100_000);
    const row = due.find((each) => each.email === email);
    if (!row) throw new Error(`no due confirmation for ${email} on ${petitionId}`);
    return row.already_signed;
  });
}

describe('guest confirmation emails: "already signed" (core/guest-signatures/emails.ts)', function () {
  this.timeout(60_000);

  it('an unverified account’s signature does not make the owner’s form say "already signed"', async () => {
    const { db } = testEnvironment();
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const email = `owner-${randomUUID().slice(0, 8)}@guests.example`;
    // Someone registered the owner's address with a provider that does not verify, and it signed.
    const claimer = await upsertUserFromClaims(db, {
      issuer: 'https://id.lax.example',
      subject: randomUUID(),
      email,
      displayName: 'Claimer',
      emailVerified: false,
    });
    await db.query(sql.typeAlias('void')`INSERT INTO signatures (petition_id, user_id) VALUES (${petitionId}, ${claimer.id})`);
    expect(await submitGuestSignatures(db, [guestForm(petitionId, email)], SETTINGS)).to.deep.equal(['queued']);
    expect(await saysAlreadySigned(petitionId, email), 'the claimer does not own the address').to.equal(false);
    // Once the address is verified, the account owns it: its signature is the owner's.
    await db.query(sql.typeAlias('void')`UPDATE users SET email_verified = true WHERE id = ${claimer.id}`);
    expect(await saysAlreadySigned(petitionId, email)).to.equal(true);
  });
});
