// The rankings schedule's trending refresh: each signature of the last 7 days weighs e^(-age / 24 h), a score is rewritten once it is more than 1% off, and a
// petition nobody signed for 7 days falls to 0. The same score whether the signatures are still queued for the analytics fold or already folded into the hourly
// rollup the refresh reads. The score is stored in forward-decay form, ln(score) + days since 2026-01-01 (0: none), which does not move as the score decays.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { refreshTrendingScores, rollUpSignatureCounts } from '../../../core/petitions/rankings.ts';
import { foldSignatureBatch } from '../../../core/analytics/fold.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const EPOCH_MS = Date.parse('2026-01-01T00:00:00Z');
const storedForm = (score: number) => (score > 0 ? Math.log(score) + (Date.now() - EPOCH_MS) / DAY_MS : 0);
const scoreNow = (stored: number) => (stored > 0 ? Math.exp(stored - (Date.now() - EPOCH_MS) / DAY_MS) : 0);

describe('refreshTrendingScores (core/petitions/rankings.ts)', () => {
  const insertPetition = async (trendingScore: number) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ id: z.string() }))`
    INSERT INTO petitions (slug, title, description, creator_id, status, trending_score)
    VALUES (${`rankings-${randomUUID()}`}, 'Rankings test', 'A petition of the trending refresh test, long enough for the check.',
      ${await insertUserRow('rankings')}, 'active', ${storedForm(trendingScore)})
    RETURNING id`);
  /** Signs `ageMs` ago; answers when. */
  const signAgo = async (petitionId: string, ageMs: number) => {
    const signedAt = Date.now() - ageMs;
    await testEnvironment().db.query(sql.typeAlias('void')`
      INSERT INTO signatures (petition_id, user_id, created_at)
      VALUES (${petitionId}, ${await insertUserRow('rankings')}, ${new Date(signedAt).toISOString()}::timestamptz)`);
    return signedAt;
  };
  const foldEverything = async () => {
    while ((await foldSignatureBatch(testEnvironment().db, 1000)) > 0);
  };
  const storedOf = (petitionId: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ trending_score: z.number() }))`
    SELECT trending_score FROM petitions WHERE id = ${petitionId}`);
  const scoreOf = async (petitionId: string) => scoreNow(await storedOf(petitionId));

  it('writes e^(-age / 24 h) summed over the signatures of the last 7 days, and nothing older', async () => {
    const petition = await insertPetition(0);
    await signAgo(petition, 0);
    await signAgo(petition, DAY_MS);
    await signAgo(petition, 8 * DAY_MS);
    await refreshTrendingScores(testEnvironment().db);
    expect(await scoreOf(petition)).to.be.closeTo(1 + Math.exp(-1), 0.001);
  });

  it('stores a form that stays put as the score decays: ln of the sum of e^((signed_at - epoch) / 24 h)', async () => {
    const petition = await insertPetition(0);
    const signedAt = [await signAgo(petition, 0), await signAgo(petition, 30 * HOUR_MS), await signAgo(petition, 3 * DAY_MS)];
    await refreshTrendingScores(testEnvironment().db);
    const expected = Math.log(signedAt.reduce((sum, at) => sum + Math.exp((at - EPOCH_MS) / DAY_MS), 0));
    expect(await storedOf(petition)).to.be.closeTo(expected, 1e-6);
  });

  it('gives the same score once the signatures are folded into the hourly rollup', async () => {
    const petition = await insertPetition(0);
    const ages = [0, 5 * 60_000, 90 * 60_000, DAY_MS, 6.5 * DAY_MS, 8 * DAY_MS];
    for (const age of ages) await signAgo(petition, age);
    await foldEverything();
    await refreshTrendingScores(testEnvironment().db);
    const expected = ages.filter((age) => age < 7 * DAY_MS).reduce((sum, age) => sum + Math.exp(-age / DAY_MS), 0);
    expect(await scoreOf(petition)).to.be.closeTo(expected, 0.001);
  });

  it('takes a removed signature out of the score, folded or not', async () => {
    const petition = await insertPetition(0);
    await signAgo(petition, 0);
    await signAgo(petition, 2 * HOUR_MS);
    await foldEverything();
    await testEnvironment().db.query(sql.typeAlias('void')`
      DELETE FROM signatures WHERE petition_id = ${petition} AND created_at < now() - interval '1 hour'`);
    await refreshTrendingScores(testEnvironment().db);
    expect(await scoreOf(petition), 'removal still queued').to.be.closeTo(1, 0.001);
    await foldEverything();
    await testEnvironment().db.query(sql.typeAlias('void')`UPDATE petitions SET trending_score = ${storedForm(5)} WHERE id = ${petition}`);
    await refreshTrendingScores(testEnvironment().db);
    expect(await scoreOf(petition), 'removal folded').to.be.closeTo(1, 0.001);
  });

  it('leaves a score alone while it is within 1% of the truth', async () => {
    // The truth is 2 (two signatures of this instant); 2.01 is 0.5% off.
    const petition = await insertPetition(2.01);
    const storedAtStart = await storedOf(petition);
    await signAgo(petition, 0);
    await signAgo(petition, 0);
    await refreshTrendingScores(testEnvironment().db);
    expect(await storedOf(petition)).to.equal(storedAtStart);
  });

  it('rewrites a score once it is more than 1% off', async () => {
    const petition = await insertPetition(2.1);
    await signAgo(petition, 0);
    await signAgo(petition, 0);
    await refreshTrendingScores(testEnvironment().db);
    expect(await scoreOf(petition)).to.be.closeTo(2, 0.001);
  });

  it('lets a petition with no signature in the last 7 days fall to 0', async () => {
    const petition = await insertPetition(0.0001);
    await signAgo(petition, 8 * DAY_MS);
    await refreshTrendingScores(testEnvironment().db);
    expect(await storedOf(petition)).to.equal(0);
  });

  it('is written by the count roll-up, in the same row version, for the petitions whose count it rolls up', async () => {
    const { db } = testEnvironment();
    const petition = await insertPetition(0);
    for (const age of [0, DAY_MS, 8 * DAY_MS]) await signAgo(petition, age);
    // What signing leaves beside the rows (core/signatures): a counter shard and a signature event
    // (about nobody's endpoint's petition, so a dispatcher fans it out to no one).
    await db.query(sql.typeAlias('void')`INSERT INTO signature_counters (petition_id, shard, count) VALUES (${petition}, 0, 3)`);
    await db.query(sql.typeAlias('void')`
      INSERT INTO events (type, actor_type, petition_id, data) VALUES ('signature.created', 'system', ${petition}, '{}')`);
    const versionOf = () => db.oneFirst(sql.type(z.object({ version: z.string() }))`SELECT xmin::text AS version FROM petitions WHERE id = ${petition}`);

    await rollUpSignatureCounts(db, 180);
    const rolledUp = await versionOf();
    expect(await db.oneFirst(sql.type(z.object({ signature_count: z.number() }))`SELECT signature_count FROM petitions WHERE id = ${petition}`)).to.equal(3);
    expect(await scoreOf(petition)).to.be.closeTo(1 + Math.exp(-1), 0.001);
    await refreshTrendingScores(db);
    expect(await versionOf(), 'the trending refresh found the score current').to.equal(rolledUp);
  });
});
