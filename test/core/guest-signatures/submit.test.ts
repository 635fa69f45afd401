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

const DAY_MS = 24 * 60 * 60_000;
const SETTINGS = { encryptionKey: 'ab'.repeat(32), confirmationTtlMs: DAY_MS, emailsPerAddressPerDay: 20 };

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
      emails.map((email) => form(petitionId, email)),
      SETTINGS,
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
      petitions.map((petitionId) => form(petitionId, victim)),
      SETTINGS,
    );
    expect(outcomes.filter((outcome) => outcome === 'queued')).to.have.length(EMAILS_PER_ADDRESS_PER_HOUR);
    expect(outcomes.slice(EMAILS_PER_ADDRESS_PER_HOUR)).to.deep.equal(['address_ceiling', 'address_ceiling']);
    expect(await openRows(victim)).to.equal(EMAILS_PER_ADDRESS_PER_HOUR);
  });

  it('mails one address at most RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY confirmations a day, one petition’s form repeated hourly included', async () => {
    const creator = await createTestUser();
    const [first, second] = await Promise.all([createPetitionRow(creator.id), createPetitionRow(creator.id)]);
    const local = `daily-${randomUUID().slice(0, 8)}`;
    const daily = { ...SETTINGS, emailsPerAddressPerDay: 3 };
    // Each form an hour and a bit after the last: the hourly ceiling and the hourly resend never stop them.
    const later = (hours: number) =>
      testEnvironment().db.query(sql.typeAlias('void')`
        UPDATE guest_signatures SET requested_at = requested_at - make_interval(hours => ${hours}) WHERE email_key = ${`${local}@guests.example`}`);
    const again = async (petitionId: string, spelling = `${local}@guests.example`) =>
      (await submitGuestSignatures(testEnvironment().db, [form(petitionId, spelling)], daily))[0];
    expect(await again(first!)).to.equal('queued');
    await later(2);
    expect(await again(first!)).to.equal('requeued');
    await later(2);
    expect(await again(first!, `${local}+more@guests.example`)).to.equal('requeued');
    await later(2);
    expect([await again(first!), await again(second!)], 'the day’s three emails are sent').to.deep.equal(['address_ceiling', 'address_ceiling']);
    await later(25);
    expect(await again(second!), 'a day later').to.equal('queued');
  });

  it('treats a second form for the same petition and address in one batch as just mailed, however the address is spelled', async () => {
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const local = `twice-${randomUUID().slice(0, 8)}`;
    const outcomes = await submitGuestSignatures(
      testEnvironment().db,
      [form(petitionId, `${local}@guests.example`), form(petitionId, `${local.toUpperCase()}@Guests.Example`)],
      SETTINGS,
    );
    expect(outcomes).to.deep.equal(['queued', 'recently_mailed']);
    const rows = await testEnvironment().db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM guest_signatures WHERE petition_id = ${petitionId}`,
    );
    expect(rows).to.equal(1);
    // Within the hour, the same form again mails nothing more.
    expect(await submitGuestSignatures(testEnvironment().db, [form(petitionId, `${local}@guests.example`)], SETTINGS)).to.deep.equal(['recently_mailed']);
  });
});
