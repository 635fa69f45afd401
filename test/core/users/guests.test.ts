// The user behind a confirmed guest signature (issue 26): the one that already has the address, else
// a new passwordless user; and that guest user becomes the person's own when they log in with an
// account whose address the provider verified, so one person stays one user.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { findOrCreateGuestUser } from '../../../core/users/guests.ts';
import { upsertUserFromClaims } from '../../../core/users/queries.ts';
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
    const signer = await findOrCreateGuestUser(testEnvironment().db, account.email.toUpperCase(), 'Someone');
    expect(signer).to.deep.equal({ id: account.id, suspended: false });
  });

  it('creates one passwordless user per address, also for its Gmail-style spellings', async () => {
    const { db } = testEnvironment();
    const tag = randomUUID().slice(0, 8);
    const first = await findOrCreateGuestUser(db, `gail.${tag}@gmail.com`, 'Gail');
    const again = await findOrCreateGuestUser(db, `gail${tag}+petitions@gmail.com`, 'Gail');
    expect(again.id).to.equal(first.id);
  });

  it('gives the guest user to the account that logs in with the verified address, and not to an unverified one', async () => {
    const { db } = testEnvironment();
    const email = address();
    const guest = await findOrCreateGuestUser(db, email, 'Gail');
    expect((await upsertUserFromClaims(db, claims(email, false))).id).to.not.equal(guest.id);
    const verified = claims(email, true);
    const user = await upsertUserFromClaims(db, verified);
    expect(user.id).to.equal(guest.id);
    expect((await upsertUserFromClaims(db, verified)).id, 'the next login finds the same user').to.equal(guest.id);
  });
});
