// The user behind a confirmed guest signature (issue 26): the one that owns the address (verified,
// issue 42), else a new passwordless user; and that guest user becomes the person's own when they log
// in with an account whose very address the provider verified, so one person stays one user.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { findOrCreateGuestUsers } from '../../../core/users/guests.ts';
import { upsertUserFromClaims } from '../../../core/users/queries.ts';
import { GUEST_IDENTITY_ISSUER } from '../../../core/vocabulary.ts';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createTestUser } from '../../support/identity.ts';

const address = () => `guest-${randomUUID().slice(0, 8)}@users.example`;
const claims = (email: string, emailVerified: boolean) => ({
  issuer: 'https://id.users.example',
  subject: randomUUID(),
  email,
  displayName: 'Gail',
  emailVerified,
});

describe('guest users (core/users/guests.ts)', () => {
  it('signs as the user who already has the address, whatever its case', async () => {
    const account = await createTestUser();
    const signers = await findOrCreateGuestUsers(testEnvironment().db, [{ email: account.email.toUpperCase(), displayName: 'Someone' }]);
    expect(signers).to.deep.equal([{ id: account.id, suspended: false }]);
  });

  it('creates one passwordless user per address, also for its Gmail-style spellings', async () => {
    const { db } = testEnvironment();
    const tag = randomUUID().slice(0, 8);
    const [first] = await findOrCreateGuestUsers(db, [{ email: `gail.${tag}@gmail.com`, displayName: 'Gail' }]);
    const [again] = await findOrCreateGuestUsers(db, [{ email: `gail${tag}+petitions@gmail.com`, displayName: 'Gail' }]);
    expect(again!.id).to.equal(first!.id);
  });

  it('finds or creates a whole batch in order: one user per person, also for two spellings of one address in the batch', async () => {
    const { db } = testEnvironment();
    const tag = randomUUID().slice(0, 8);
    const account = await createTestUser();
    const people = [
      { email: `bo.${tag}@gmail.com`, displayName: 'Bo' },
      { email: account.email, displayName: 'Account holder' },
      { email: `cy-${tag}@users.example`, displayName: 'Cy' },
      { email: `bo${tag}+again@gmail.com`, displayName: 'Bo' },
    ];
    const signers = await findOrCreateGuestUsers(db, people);
    expect(signers).to.have.length(4);
    expect(signers[1]).to.deep.equal({ id: account.id, suspended: false });
    expect(signers[3]!.id, 'two spellings of one Gmail address').to.equal(signers[0]!.id);
    expect(new Set(signers.map((signer) => signer.id)).size).to.equal(3);
    expect(await findOrCreateGuestUsers(db, people), 'the same batch again finds the same users').to.deep.equal(signers);
  });

  it('creates a new address once when two batches bring it at the same time', async () => {
    const { db } = testEnvironment();
    const person = { email: `twice-${randomUUID().slice(0, 8)}@users.example`, displayName: 'Twice' };
    const [first, second] = await Promise.all([findOrCreateGuestUsers(db, [person]), findOrCreateGuestUsers(db, [person])]);
    expect(second![0]!.id).to.equal(first![0]!.id);
  });

  it('an account whose address is not verified does not own it: a confirmed guest signature goes to the guest user', async () => {
    const { db } = testEnvironment();
    const email = address();
    const claimer = await upsertUserFromClaims(db, claims(email, false));
    const [signer] = await findOrCreateGuestUsers(db, [{ email, displayName: 'The real owner' }]);
    expect(signer!.id).to.not.equal(claimer.id);
    const owner = await db.one(sql.type(z.object({ identity_issuer: z.string(), email_verified: z.boolean() }))`
      SELECT identity_issuer, email_verified FROM users WHERE id = ${signer!.id}`);
    expect(owner).to.deep.equal({ identity_issuer: GUEST_IDENTITY_ISSUER, email_verified: true });
  });

  it('adopts guest signatures only on the exact, case-folded address, never on the normalised key', async () => {
    const { db } = testEnvironment();
    const local = `alice-${randomUUID().slice(0, 8)}`;
    const [guest] = await findOrCreateGuestUsers(db, [{ email: `${local}@corp.example`, displayName: 'Alice' }]);
    // rally_email_key drops +tags on every domain, where alice+x may well be another person's mailbox.
    const tagged = await upsertUserFromClaims(db, claims(`${local}+x@corp.example`, true));
    expect(tagged.id, 'a +tag spelling adopts nothing').to.not.equal(guest!.id);
    const exact = await upsertUserFromClaims(db, claims(`${local.toUpperCase()}@Corp.Example`, true));
    expect(exact.id, 'the same address in other case adopts').to.equal(guest!.id);
  });

  it('gives the guest user to the account that logs in with the verified address, and not to an unverified one', async () => {
    const { db } = testEnvironment();
    const email = address();
    const [guest] = await findOrCreateGuestUsers(db, [{ email, displayName: 'Gail' }]);
    expect((await upsertUserFromClaims(db, claims(email, false))).id).to.not.equal(guest!.id);
    const verified = claims(email, true);
    const user = await upsertUserFromClaims(db, verified);
    expect(user.id).to.equal(guest!.id);
    expect((await upsertUserFromClaims(db, verified)).id, 'the next login finds the same user').to.equal(guest!.id);
  });
});
