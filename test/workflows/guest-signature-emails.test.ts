// The one workflow that mails every guest signature's emails (issue 26): confirmations go out in batches from one workflow (never one per guest signature), an
// address that had signed is told so instead of getting a link, an unconfirmed one is reminded once and then expires, and the workflow ends once nothing is
// open. Mail to strangers (issue 42): no reminder for an address a form was over a limit for, nothing to an address that asked never to be emailed again.
import { expect } from 'chai';
import { z } from 'zod';
import { createGuestSignatureEmailActivities } from '../../activities/guest-signature-emails.ts';
import { addressHash, mailStopKey, stopGuestMail } from '../../core/guest-signatures/mail-stop.ts';
import { EMAILS_PER_ADDRESS_PER_HOUR, submitGuestSignatures } from '../../core/guest-signatures/submit.ts';
import { guestForm } from '../support/guest-signatures.ts';
import { sql } from '../../db/sql.ts';
import { createMailer } from '../../platform/mailer.ts';
import { guestSignatureEmails } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow } from '../support/events.ts';
import { createTestUser } from '../support/identity.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

const PUBLIC_URL = 'http://rally.test';
const ENCRYPTION_KEY = '5f'.repeat(32);

describe('workflow guestSignatureEmails', function () {
  this.timeout(120_000);
  let mail: MailCatcher;

  before(async () => {
    mail = await startMailCatcher();
    // The workflow ends once no guest signature is open in the whole database: the ones earlier tests
    // of this shared database left open (their petitions are done with) are closed first.
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE guest_signatures SET status = 'expired' WHERE status = 'pending'`);
  });
  after(() => mail.stop());

  const sign = async (petitionId: string, email: string, ttlMs: number) =>
    (
      await submitGuestSignatures(testEnvironment().db, [guestForm(petitionId, email)], {
        encryptionKey: ENCRYPTION_KEY,
        confirmationTtlMs: ttlMs,
        emailsPerAddressPerDay: 20,
      })
    )[0];
  const statusOf = (petitionId: string, email: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ status: z.string() }))`
      SELECT status FROM guest_signatures WHERE petition_id = ${petitionId} AND email = ${email}`);
  const mailsTo = (address: string) => mail.messages.filter((message) => message.to.includes(address)).map((message) => message.subject);

  /** Runs the workflow on a fresh worker; `setup` writes the guest signatures once the worker is up (its start takes seconds). */
  async function run(taskQueue: string, ttlMs: number, setup: () => Promise<void>, history?: string) {
    const mailer = createMailer({ smtpUrl: mail.url, dir: '', from: 'Rally <rally@rally.test>' });
    const worker = await createTestWorker(
      taskQueue,
      createGuestSignatureEmailActivities({ db: testEnvironment().db, mailer, publicUrl: PUBLIC_URL, encryptionKey: ENCRYPTION_KEY }),
    );
    return worker.runUntil(async () => {
      await setup();
      const handle = await testEnvironment().temporal.client.workflow.start(guestSignatureEmails, {
        taskQueue,
        workflowId: `guest-signature-emails-${taskQueue}`,
        args: [{ ttlMs }],
      });
      const outcome = await handle.result();
      if (history) await captureHistory(history, handle);
      return outcome;
    });
  }

  it('mails the confirmation, reminds once halfway, expires at the deadline, then ends', async () => {
    const creator = await createTestUser();
    const petitionId = await createPetitionRow(creator.id, 'Mend the harbour wall');
    const email = `gus-${Date.now()}@harbour.example`;
    const result = await run(
      uniqueTaskQueue('guest-signature-emails'),
      4_000,
      async () => {
        expect(await sign(petitionId, email, 4_000)).to.equal('queued');
      },
      'guest-signature-emails-reminded-then-expired',
    );
    expect(mailsTo(email)).to.deep.equal(['Confirm your signature: Mend the harbour wall', 'Reminder: confirm your signature: Mend the harbour wall']);
    expect(await statusOf(petitionId, email)).to.equal('expired');
    expect(result.expired).to.be.at.least(1);
  });

  it('sends no reminder to an address that a form was over a limit for', async () => {
    const creator = await createTestUser();
    const petitions = await Promise.all(Array.from({ length: EMAILS_PER_ADDRESS_PER_HOUR + 1 }, (_, n) => createPetitionRow(creator.id, `Fix lamp ${n}`)));
    const email = `flooded-${Date.now()}@harbour.example`;
    await run(uniqueTaskQueue('guest-signature-emails'), 4_000, async () => {
      const outcomes = [];
      for (const petitionId of petitions) outcomes.push(await sign(petitionId, email, 4_000));
      expect(outcomes.at(-1)).to.equal('address_ceiling');
    });
    expect(mailsTo(email)).to.have.length(EMAILS_PER_ADDRESS_PER_HOUR);
    expect(mailsTo(email).filter((subject) => subject.startsWith('Reminder'))).to.deep.equal([]);
  });

  it('mails nothing more to an address that asked never to be emailed again, whatever its +tag; every email offers it', async () => {
    const creator = await createTestUser();
    const [petitionId, another] = await Promise.all([createPetitionRow(creator.id, 'Paint the harbour crane'), createPetitionRow(creator.id, 'Oil it')]);
    const stamp = Date.now();
    const [stopped, tagged, other] = [`stopped-${stamp}@harbour.example`, `stopped-${stamp}+petitions@harbour.example`, `other-${stamp}@harbour.example`];
    await stopGuestMail(testEnvironment().db, addressHash(mailStopKey(ENCRYPTION_KEY), stopped));
    await run(uniqueTaskQueue('guest-signature-emails'), 4_000, async () => {
      expect([await sign(petitionId, stopped, 4_000), await sign(another, tagged, 4_000)]).to.deep.equal(['queued', 'queued']);
      const named = { ...guestForm(petitionId, other), displayName: 'Win big at evil.example/now' };
      await submitGuestSignatures(testEnvironment().db, [named], { encryptionKey: ENCRYPTION_KEY, confirmationTtlMs: 4_000, emailsPerAddressPerDay: 20 });
    });
    expect([...mailsTo(stopped), ...mailsTo(tagged)]).to.deep.equal([]);
    const [confirmation] = mail.messages.filter((message) => message.to.includes(other));
    expect(confirmation!.text).to.include('Hello Win big at,').and.not.include('evil.example');
    const stop = /^Never email me again .*: (http:\/\/rally\.test\/guest-emails\/unsubscribe\/\S+)$/m.exec(confirmation!.text)?.[1];
    expect(stop).to.be.a('string');
    const head = confirmation!.raw.split(/\r?\n\r?\n/)[0]!.replace(/\s+/g, '');
    expect(head).to.include(`List-Unsubscribe:<${stop}>`).and.include('List-Unsubscribe-Post:List-Unsubscribe=One-Click');
  });

  it('mails hundreds of confirmations from one workflow in a few rounds, each once, and tells an address that signed already', async () => {
    const creator = await createTestUser();
    const petitionId = await createPetitionRow(creator.id, 'Light the harbour steps');
    const stamp = Date.now();
    const addresses = Array.from({ length: 450 }, (_, index) => `crowd-${stamp}-${index}@crowd.example`);
    // Someone who signed through the API with an account, then fills the guest form with that address.
    const signer = await createTestUser();
    await testEnvironment().db.query(sql.typeAlias('void')`INSERT INTO signatures (petition_id, user_id) VALUES (${petitionId}, ${signer.id})`);
    const setup = async () => {
      for (const address of addresses) await sign(petitionId, address, 60_000);
      await sign(petitionId, signer.email, 60_000);
    };
    // Confirmed meanwhile, as a click does: the workflow then has nothing open left and ends.
    const close = () =>
      testEnvironment().db.query(sql.typeAlias('void')`
      UPDATE guest_signatures SET status = 'confirmed' WHERE petition_id = ${petitionId} AND status = 'pending' AND NOT email_due`);
    // A round that fails (the pool closing after a failed test) is tried again by the next tick or not at all.
    const closing = setInterval(() => void close().catch(() => undefined), 200);
    try {
      const result = await run(uniqueTaskQueue('guest-signature-emails'), 60_000, setup);
      expect(result.rounds).to.be.within(2, 10);
      expect(result.confirmations).to.be.at.least(addresses.length + 1);
    } finally {
      clearInterval(closing);
    }
    for (const address of addresses) expect(mailsTo(address)).to.deep.equal(['Confirm your signature: Light the harbour steps']);
    expect(mailsTo(signer.email)).to.deep.equal(['You have already signed: Light the harbour steps']);
    expect(await statusOf(petitionId, signer.email)).to.equal('already_signed');
  });
});
