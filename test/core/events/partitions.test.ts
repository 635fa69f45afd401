// The outbox keeps one partition per day: the coming days' are made ahead, and a day older than the
// retention is dropped whole (no row deleted, nothing for VACUUM), unless the dispatcher has not read
// all of it. Run on days a hundred days ahead, in a transaction rolled back at the end.
import { expect } from 'chai';
import { z } from 'zod';
import type { CommonQueryMethods } from 'slonik';
import { sql } from '../../../db/sql.ts';
import { DAYS_AHEAD, dropExpiredEventPartitions, ensureEventPartitions } from '../../../core/events/partitions.ts';
import { testEnvironment } from '../../support/environment.ts';
import { inRolledBackTransaction } from '../../support/migration-statements.ts';

const DAY_MS = 86_400_000;
const RETENTION_MS = 30 * DAY_MS;
const dayAhead = (days: number) => new Date((Math.floor(Date.now() / DAY_MS) + days) * DAY_MS);
const nameOf = (day: Date) => `events_${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
const exists = (tx: CommonQueryMethods, name: string) =>
  tx.oneFirst(sql.type(z.object({ exists: z.boolean() }))`SELECT to_regclass(${name}) IS NOT NULL AS exists`);
const writeOn = (tx: CommonQueryMethods, day: Date) =>
  tx.query(sql.typeAlias('void')`INSERT INTO events (type, actor_type, data, occurred_at) VALUES ('petition.updated', 'system', '{}', ${day.toISOString()})`);
/** As if the dispatcher had read everything written so far. */
const readEverything = (tx: CommonQueryMethods) =>
  tx.query(sql.typeAlias('void')`
    UPDATE event_consumers SET transaction_id = pg_current_xact_id(), position = (SELECT last_value FROM event_positions) WHERE name = 'dispatcher'`);

describe('the outbox partitions (core/events/partitions.ts)', function () {
  this.timeout(30_000);

  it('makes today and the days ahead, once', async () => {
    await inRolledBackTransaction(testEnvironment().db, async (tx) => {
      const from = dayAhead(100);
      expect(await ensureEventPartitions(tx, from)).to.equal(DAYS_AHEAD + 1);
      expect(await ensureEventPartitions(tx, from)).to.equal(0);
      for (let day = 0; day <= DAYS_AHEAD; day += 1) expect(await exists(tx, nameOf(dayAhead(100 + day)))).to.equal(true);
    });
  });

  it('drops whole the days older than the retention and keeps the rest', async () => {
    await inRolledBackTransaction(testEnvironment().db, async (tx) => {
      await ensureEventPartitions(tx, dayAhead(100));
      for (const day of [100, 101, 102]) await writeOn(tx, dayAhead(day));
      await readEverything(tx);
      // 30 days after the end of day 101: days up to 101 are past the window, 102 is not.
      const now = new Date(dayAhead(102).getTime() + RETENTION_MS);
      const dropped = await dropExpiredEventPartitions(tx, now, RETENTION_MS);
      expect(dropped).to.include.members([nameOf(dayAhead(100)), nameOf(dayAhead(101))]);
      expect(dropped).not.to.include(nameOf(dayAhead(102)));
      expect(await exists(tx, nameOf(dayAhead(101)))).to.equal(false);
      expect(await exists(tx, nameOf(dayAhead(102)))).to.equal(true);
      const left = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM events WHERE occurred_at >= ${dayAhead(100).toISOString()}`);
      expect(left).to.equal(1);
    });
  });

  it('keeps a day past the retention while it holds events the dispatcher has not read', async () => {
    await inRolledBackTransaction(testEnvironment().db, async (tx) => {
      await ensureEventPartitions(tx, dayAhead(100));
      await readEverything(tx);
      await writeOn(tx, dayAhead(100));
      const dropped = await dropExpiredEventPartitions(tx, new Date(dayAhead(101).getTime() + RETENTION_MS), RETENTION_MS);
      expect(dropped).not.to.include(nameOf(dayAhead(100)));
      expect(await exists(tx, nameOf(dayAhead(100)))).to.equal(true);
    });
  });
});
