// Guest signing forms stored in batches (core/guest-signatures/submit.ts) against the real database:
// the forms of one batch are judged as if they came one after another, so batching opens no way
// around the limits that keep a stranger from mail-bombing an address.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { EMAILS_PER_ADDRESS_PER_HOUR, submitGuestSignatures } from '../../../core/guest-signatures/submit.ts';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow } from '../../support/events.ts';
import { guestForm as form } from '../../support/guest-signatures.ts';
import { createTestUser } from '../../support/identity.ts';

const KEY = 'ab'.repeat(32);
const DAY_MS = 24 * 60 * 60_000;

const openRows = (email: string) =>
  testEnvironment().db.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM guest_signatures WHERE email = ${email} AND status = 'pending'`,
  );

describe('guest signing forms stored in batches (core/guest-signatures/submit.ts)', function () {
  this.timeout(60_000);

  it('stores every form of a batch, each with its own outcome, in the order given', async () => {
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const emails = Array.from({ length: 5 }, (_, index) => `batch-${index}-${randomUUID().slice(0, 8)}@guests.example`);
    const outcomes = await submitGuestSignatures(
      testEnvironment().db,
      KEY,
      emails.map((email) => form(petitionId, email)),
      DAY_MS,
    );
    expect(outcomes).to.deep.equal(['queued', 'queued', 'queued', 'queued', 'queued']);
    for (const email of emails) expect(await openRows(email)).to.equal(1);
  });

  it('counts the forms before it in the batch towards an address’s hourly ceiling', async () => {
    const creator = await createTestUser();
    const petitions = await Promise.all(Array.from({ length: EMAILS_PER_ADDRESS_PER_HOUR + 2 }, () => createPetitionRow(creator.id)));
    const victim = `victim-${randomUUID().slice(0, 8)}@guests.example`;
    // One batch of forms, each for another petition, all naming one stranger's address.
    const outcomes = await submitGuestSignatures(
      testEnvironment().db,
      KEY,
      petitions.map((petitionId) => form(petitionId, victim)),
      DAY_MS,
    );
    expect(outcomes.filter((outcome) => outcome === 'queued')).to.have.length(EMAILS_PER_ADDRESS_PER_HOUR);
    expect(outcomes.slice(EMAILS_PER_ADDRESS_PER_HOUR)).to.deep.equal(['address_ceiling', 'address_ceiling']);
    expect(await openRows(victim)).to.equal(EMAILS_PER_ADDRESS_PER_HOUR);
  });

  it('treats a second form for the same petition and address in one batch as just mailed, however the address is spelled', async () => {
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const local = `twice-${randomUUID().slice(0, 8)}`;
    const outcomes = await submitGuestSignatures(
      testEnvironment().db,
      KEY,
      [form(petitionId, `${local}@guests.example`), form(petitionId, `${local.toUpperCase()}@Guests.Example`)],
      DAY_MS,
    );
    expect(outcomes).to.deep.equal(['queued', 'recently_mailed']);
    const rows = await testEnvironment().db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM guest_signatures WHERE petition_id = ${petitionId}`,
    );
    expect(rows).to.equal(1);
    // Within the hour, the same form again mails nothing more.
    expect(await submitGuestSignatures(testEnvironment().db, KEY, [form(petitionId, `${local}@guests.example`)], DAY_MS)).to.deep.equal(['recently_mailed']);
  });
});
