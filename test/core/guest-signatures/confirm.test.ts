// Confirming guest signatures in batches (core/guest-signatures/confirm.ts and confirm-batcher.ts) through the signature batcher, against the real database:
// many confirmations in one batch each become a signature and are marked confirmed together, announced and counted toward milestones like any signature; the
// same link clicked twice at once signs once; a bad, expired or suspended link in a batch gets its own answer and the others still sign.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { createConfirmBatcher } from '../../../core/guest-signatures/confirm-batcher.ts';
import { submitGuestSignatures } from '../../../core/guest-signatures/submit.ts';
import { confirmationReference } from '../../../core/guest-signatures/tokens.ts';
import { createSignBatcher } from '../../../core/signatures/sign-batcher.ts';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow } from '../../support/events.ts';
import { guestForm } from '../../support/guest-signatures.ts';
import { createTestUser } from '../../support/identity.ts';

const KEY = 'cd'.repeat(32);
const NOWHERE = { city: null, region: null, country: null, latitude: null, longitude: null };

/** Pending guest signatures for new addresses on a new petition, and their links' references. */
async function pendingGuests(count: number): Promise<{ petitionId: string; references: string[] }> {
  const { db } = testEnvironment();
  const petitionId = await createPetitionRow((await createTestUser()).id);
  const emails = Array.from({ length: count }, (_, index) => `confirm-${index}-${randomUUID().slice(0, 8)}@guests.example`);
  const forms = emails.map((email) => guestForm(petitionId, email));

  expect(await submitGuestSignatures(db, forms, { encryptionKey: KEY, confirmationTtlMs: 60 * 60_000, emailsPerAddressPerDay: 20 })).to.deep.equal(
    emails.map(() => 'queued'),
  );
  const ids = await db.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id FROM guest_signatures WHERE petition_id = ${petitionId}`);
  return { petitionId, references: ids.map((id) => confirmationReference(KEY, id)) };
}

const tally = (petitionId: string) =>
  testEnvironment().db.one(sql.type(z.object({ counted: z.number(), signatures: z.number(), confirmed: z.number(), linked: z.number() }))`
    SELECT (SELECT COALESCE(sum(count), 0)::int FROM signature_counters WHERE petition_id = ${petitionId}) AS counted,
      (SELECT count(*)::int FROM signatures WHERE petition_id = ${petitionId}) AS signatures,
      (SELECT count(*)::int FROM guest_signatures WHERE petition_id = ${petitionId} AND status = 'confirmed') AS confirmed,
      (SELECT count(*)::int FROM guest_signatures g JOIN signatures s ON s.id = g.signature_id WHERE g.petition_id = ${petitionId}) AS linked`);

/** Confirms the links together (one confirmation batch, hence one signature batch), answering each outcome's kind. */
async function confirmTogether(references: readonly string[]): Promise<string[]> {
  const { db } = testEnvironment();
  const signatures = createSignBatcher(db, { windowMs: 200, maxSize: 10 });
  const confirmations = createConfirmBatcher(db, signatures, { windowMs: 200, maxSize: 10 });
  const outcomes = await Promise.all(references.map((reference) => confirmations.confirm({ reference, place: NOWHERE })));
  await confirmations.stop();
  await signatures.stop();
  return outcomes.map((outcome) => outcome.kind);
}

describe('confirming guest signatures (core/guest-signatures/confirm.ts)', function () {
  this.timeout(60_000);

  it('signs every guest of a batch and marks each confirmed with its own signature', async () => {
    const { petitionId, references } = await pendingGuests(6);
    expect(await confirmTogether(references)).to.deep.equal(references.map(() => 'signed'));
    expect(await tally(petitionId)).to.deep.equal({ counted: 6, signatures: 6, confirmed: 6, linked: 6 });
  });

  it('announces each confirmed signature and claims the milestone the tenth reaches, as API signatures do', async () => {
    const { db } = testEnvironment();
    const { petitionId, references } = await pendingGuests(10);
    expect(await confirmTogether(references)).to.deep.equal(references.map(() => 'signed'));
    const events = await db.any(sql.type(z.object({ type: z.string(), milestone: z.number().nullable() }))`
      SELECT type, (data->>'milestone')::int AS milestone FROM events WHERE petition_id = ${petitionId} AND type LIKE 'signature.%' ORDER BY type`);
    expect(events.filter((event) => event.type === 'signature.created')).to.have.length(10);
    expect(events.filter((event) => event.type === 'signature.milestone')).to.deep.equal([{ type: 'signature.milestone', milestone: 10 }]);
    const claimed = await db.any(sql.type(z.object({ threshold: z.number(), guest: z.boolean() }))`
      SELECT m.threshold::int AS threshold, EXISTS (SELECT 1 FROM guest_signatures g WHERE g.signature_id = m.signature_id) AS guest
      FROM petition_milestones m WHERE m.petition_id = ${petitionId}`);
    expect(claimed).to.deep.equal([{ threshold: 10, guest: true }]);
  });

  it('signs once when the same link is clicked twice at once, and tells the second click it is confirmed', async () => {
    const { petitionId, references } = await pendingGuests(1);
    expect((await confirmTogether([references[0]!, references[0]!])).sort()).to.deep.equal(['already_confirmed', 'signed']);
    expect(await tally(petitionId)).to.deep.equal({ counted: 1, signatures: 1, confirmed: 1, linked: 1 });
    // A third click, later, finds it confirmed and changes nothing.
    expect(await confirmTogether([references[0]!])).to.deep.equal(['already_confirmed']);
    expect(await tally(petitionId)).to.deep.equal({ counted: 1, signatures: 1, confirmed: 1, linked: 1 });
  });

  it("answers each link of a batch on its own: a forged, an expired and a suspended signer's link fail, the rest sign", async () => {
    const { db } = testEnvironment();
    const { petitionId, references } = await pendingGuests(4);
    const [good, forged, expired, suspended] = references as [string, string, string, string];
    const [id] = forged.split('.');
    await db.query(sql.typeAlias('void')`UPDATE guest_signatures SET expires_at = now() - interval '1 second' WHERE id = ${expired.split('.')[0]!}`);
    const suspendedEmail = await db.oneFirst(
      sql.type(z.object({ email: z.string() }))`SELECT email FROM guest_signatures WHERE id = ${suspended.split('.')[0]!}`,
    );
    await db.query(sql.typeAlias('void')`
      INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug, suspended_at, email_verified)
      VALUES ('test', ${randomUUID()}, ${suspendedEmail}, 'Suspended', ${`suspended-${randomUUID().slice(0, 8)}`}, now(), true)`);
    const kinds = await confirmTogether([good, `${id}.${'A'.repeat(43)}`, expired, suspended]);
    expect(kinds).to.deep.equal(['signed', 'invalid', 'expired', 'refused']);
    expect(await tally(petitionId)).to.deep.equal({ counted: 1, signatures: 1, confirmed: 1, linked: 1 });
  });
});
