// Two batches written at the same time, against the real database, each counting from a snapshot
// without the other: a milestone that neither counted up to must still be claimed, exactly once.
import { expect } from 'chai';
import pg from 'pg';
import { z } from 'zod';
import { signBatch, type SignAnswer } from '../../../core/signatures/sign.ts';
import { sql } from '../../../db/sql.ts';
import { silentLogger } from '../../../platform/logger.ts';
import { testEnvironment } from '../../support/environment.ts';
import { createPetitionRow, eventually } from '../../support/events.ts';
import { createTestUser } from '../../support/identity.ts';
import { plainSignatureInput } from '../../support/signature-input.ts';

const signed = (answers: readonly SignAnswer[]) =>
  answers.map((answer) => {
    if (!answer.ok) throw answer.error;
    return answer.result;
  });

describe('milestones passed by concurrent signing batches (core/signatures/milestone-catch-up.ts)', function () {
  this.timeout(60_000);

  it('claims a milestone that no batch counted up to, once, for a signature whose answer says so', async () => {
    const { db, databaseUrl } = testEnvironment();
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const [held, other, third, fourth, ...earlier] = await Promise.all(Array.from({ length: 11 }, () => createTestUser()));
    const sign = (users: readonly { id: string }[]) =>
      signBatch(
        db,
        users.map((user) => ({ input: plainSignatureInput(petitionId, user.id) })),
        silentLogger,
      );
    await sign(earlier);

    // An uncommitted signature of `held` makes the first batch wait inside its statement, after its
    // snapshot (7 signatures) was taken; the second batch, meanwhile, also counts from 7 and commits.
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    let second: SignAnswer[];
    let first: Promise<SignAnswer[]>;
    try {
      await blocker.query('BEGIN');
      await blocker.query('INSERT INTO signatures (petition_id, user_id) VALUES ($1, $2)', [petitionId, held!.id]);
      first = sign([held!, other!]);
      await eventually(
        async () =>
          (await db.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)) > 0 || undefined,
        30_000,
        'the first batch to wait',
      );
      second = await sign([third!, fourth!]);
      await blocker.query('ROLLBACK');
    } finally {
      await blocker.end();
    }
    const answers = [...signed(await first), ...signed(second)];

    // 11 signatures: milestone 10 reached, though each batch alone counted only to 9.
    const total = await db.oneFirst(
      sql.type(z.object({ n: z.number() }))`SELECT COALESCE(sum(count), 0)::int AS n FROM signature_counters WHERE petition_id = ${petitionId}`,
    );
    expect(total).to.equal(11);
    const claims = await db.any(sql.type(z.object({ threshold: z.number(), signature_id: z.string() }))`
      SELECT threshold::int, signature_id FROM petition_milestones WHERE petition_id = ${petitionId}`);
    expect(claims.map((claim) => claim.threshold)).to.deep.equal([10]);
    const flagged = answers.filter((answer) => answer.milestone_reached);
    expect(flagged.map((answer) => answer.id)).to.deep.equal([claims[0]!.signature_id]);
    expect(flagged[0]!.signature_count).to.be.at.least(10);
    const events = await db.anyFirst(sql.type(z.object({ milestone: z.number() }))`
      SELECT (data->>'milestone')::int AS milestone FROM events WHERE petition_id = ${petitionId} AND type = 'signature.milestone'`);
    expect(events).to.deep.equal([10]);
  });
});
