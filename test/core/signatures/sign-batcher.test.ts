// The group-commit batcher against the real database: work done inside a batch's transaction, a
// batch that fails, and the bounded queue.
import { expect } from 'chai';
import { z } from 'zod';
import { Unavailable } from '../../../core/errors/domain-error.ts';
import { createSignBatcher } from '../../../core/signatures/sign-batcher.ts';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow } from '../../support/events.ts';
import { createTestUser } from '../../support/identity.ts';
import { plainSignatureInput } from '../../support/signature-input.ts';

describe('the signature batcher (core/signatures/sign-batcher.ts)', function () {
  this.timeout(60_000);

  it('runs each request’s in-transaction work with its own answer; when one throws, only that request fails', async () => {
    const { db } = testEnvironment();
    const creator = await createTestUser();
    const petitionId = await createPetitionRow(creator.id);
    const signers = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    const batcher = createSignBatcher(db, { windowMs: 200, maxSize: 10 });
    const seen: string[] = [];
    const settled = await Promise.allSettled(
      signers.map((signer, index) =>
        batcher.sign({
          input: plainSignatureInput(petitionId, signer.id),
          async withinWrite(tx, answer) {
            // Inside the transaction: the signature is visible here before it commits.
            const mine = await tx.maybeOneFirst(
              sql.type(z.object({ id: z.string() }))`SELECT id FROM signatures WHERE petition_id = ${petitionId} AND user_id = ${signer.id}`,
            );
            seen.push(`${answer.ok}:${mine !== null}`);
            if (index === 1) throw new Error('the idempotency store refused');
          },
        }),
      ),
    );
    await batcher.stop();
    expect(settled.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).to.equal('the idempotency store refused');
    expect(new Set(seen)).to.deep.equal(new Set(['true:true']));
    const kept = await db.anyFirst(sql.type(z.object({ user_id: z.string() }))`SELECT user_id FROM signatures WHERE petition_id = ${petitionId}`);
    expect(kept).to.have.members([signers[0]!.id, signers[2]!.id]);
    const counted = await db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT COALESCE(sum(count), 0)::int AS n FROM signature_counters WHERE petition_id = ${petitionId}`,
    );
    expect(counted).to.equal(2);
  });

  it('refuses at once with 503 signing_busy when its queue is full, and writes what it accepted', async () => {
    const { db } = testEnvironment();
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const signers = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
    const batcher = createSignBatcher(db, { windowMs: 60_000, maxSize: 100, maxQueued: 2 });
    const accepted = signers.slice(0, 2).map((signer) => batcher.sign({ input: plainSignatureInput(petitionId, signer.id) }));
    const refused = await batcher.sign({ input: plainSignatureInput(petitionId, signers[2]!.id) }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(Unavailable);
    expect(refused).to.include({ code: 'signing_busy', retryAfterSeconds: 1 });
    await batcher.stop();
    expect((await Promise.all(accepted)).map((result) => result.signature_count).sort()).to.deep.equal([1, 2]);
  });
});
