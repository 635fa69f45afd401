// Migration 0036 turns every stored trending score into its forward-decay form, ln(score) + days
// since 2026-01-01, and leaves 0 (no signature in the window) as it is. Run from the file on rows
// holding scores as they were before it, inside a transaction that is rolled back.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';
import { inRolledBackTransaction, migrationStatement } from '../../support/migration-statements.ts';

const DAY_MS = 86_400_000;

describe('migration 0036: trending scores in forward-decay form', () => {
  it('stores ln(score) + days since 2026-01-01 for a positive score and keeps 0 for none', async () => {
    const { db } = testEnvironment();
    const statement = await migrationStatement('0036_trending_forward_decay.sql', 'UPDATE petitions');
    const creator = await insertUserRow('forward-decay');
    const insert = (score: number) =>
      db.oneFirst(sql.type(z.object({ id: z.string() }))`
        INSERT INTO petitions (slug, title, description, creator_id, status, trending_score)
        VALUES (${`forward-decay-${randomUUID()}`}, 'Forward decay test', 'A petition of the forward-decay migration test, long enough for the check.',
          ${creator}, 'active', ${score})
        RETURNING id`);
    const [busy, quiet] = [await insert(42.5), await insert(0)];
    await inRolledBackTransaction(db, async (tx) => {
      await tx.query(statement);
      const storedOf = (id: string) => tx.oneFirst(sql.type(z.object({ trending_score: z.number() }))`SELECT trending_score FROM petitions WHERE id = ${id}`);
      const days = (Date.now() - Date.parse('2026-01-01T00:00:00Z')) / DAY_MS;
      expect(await storedOf(busy)).to.be.closeTo(Math.log(42.5) + days, 1e-4);
      expect(await storedOf(quiet)).to.equal(0);
    });
  });
});
