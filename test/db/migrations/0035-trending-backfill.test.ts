// Migration 0035 gives the hourly rollup each hour's trending weight. Its backfill runs while the rollup holds folded hours and other signatures wait in the
// fold's queue; after it and the new fold, every score must be what the old rule (one term per signature of the last 7 days) gave. Run on a database of its own
// (the backfill and the fold sweep whole tables), in a transaction rolled back to the state before the migration.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { foldSignatureBatch } from '../../../core/analytics/fold.ts';
import { refreshTrendingScores } from '../../../core/petitions/rankings.ts';
import { withFreshDatabase } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';
import { inRolledBackTransaction, migrationStatement } from '../../support/migration-statements.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('migration 0035: the hourly rollup’s trending weights, backfilled', () => {
  it('gives every petition the score of its signatures of the last 7 days, folded, queued or removed', () =>
    withFreshDatabase(async (db) => {
      const backfill = await migrationStatement('0035_trending_from_hourly_rollup.sql', 'UPDATE petition_signatures_hourly');
      const petitionId = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO petitions (slug, title, description, creator_id, status)
      VALUES (${`backfill-${randomUUID()}`}, 'Backfill test', 'A petition of the trending backfill test, long enough.',
        ${await insertUserRow('backfill', 'user', db)}, 'active')
      RETURNING id`);
      const sign = async (ageMs: number) =>
        db.query(sql.typeAlias('void')`
        INSERT INTO signatures (petition_id, user_id, created_at)
        VALUES (${petitionId}, ${await insertUserRow('backfill', 'user', db)}, ${new Date(Date.now() - ageMs).toISOString()}::timestamptz)`);
      const foldAll = async (connection: Parameters<typeof foldSignatureBatch>[0]) => {
        while ((await foldSignatureBatch(connection, 1000)) > 0);
      };

      // Folded before the migration: two hours ago, a day ago, 8 days ago (outside the window), and one that will be removed.
      for (const age of [2 * HOUR_MS, DAY_MS, 8 * DAY_MS, 3 * HOUR_MS]) await sign(age);
      await foldAll(db);
      // Still queued when the migration runs: one now, one in an hour already folded, and the removal.
      await sign(0);
      await sign(DAY_MS + 60_000);
      await db.query(sql.typeAlias('void')`
      DELETE FROM signatures WHERE petition_id = ${petitionId} AND created_at < now() - interval '150 minutes' AND created_at > now() - interval '4 hours'`);

      await inRolledBackTransaction(db, async (tx) => {
        await tx.query(sql.typeAlias('void')`UPDATE petition_signatures_hourly SET decay_weight = 0`);
        await tx.query(backfill);
        await foldAll(tx);
        await refreshTrendingScores(tx);
        const stored = await tx.oneFirst(sql.type(z.object({ trending_score: z.number() }))`SELECT trending_score FROM petitions WHERE id = ${petitionId}`);
        // Stored in forward-decay form since migration 0036: ln(score) + days since 2026-01-01.
        const score = Math.exp(stored - (Date.now() - Date.parse('2026-01-01T00:00:00Z')) / DAY_MS);
        const expected = [2 * HOUR_MS, DAY_MS, 0, DAY_MS + 60_000].reduce((sum, age) => sum + Math.exp(-age / DAY_MS), 0);
        expect(score).to.be.closeTo(expected, 0.001);
      });
    }));
});
