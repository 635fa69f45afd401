// The outbox is read past a stored position, in (transaction, position) order and only below the
// oldest transaction still running. Positions are taken at insert, not at commit: an event whose
// transaction took its position first and committed last must still be read, before those after it.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../../db/sql.ts';
import { recordEvent } from '../../../core/events/record-event.ts';
import { readAfter, waitingBehindHorizon, type LoggedEvent } from '../../../core/events/outbox-reader.ts';
import { testEnvironment } from '../../support/environment.ts';
import { insertUserRow } from '../../support/rows.ts';
import { createPetitionRow, emitEvent, eventually } from '../../support/events.ts';

describe('reading the outbox (core/events/outbox-reader.ts)', function () {
  this.timeout(30_000);

  it('does not skip an event whose transaction took its position earlier but committed later', async () => {
    const { db } = testEnvironment();
    const petition = await createPetitionRow(await insertUserRow('outbox-order'));
    // Every event written from here on has a transaction id at or above this.
    const start = {
      transaction_id: await db.oneFirst(sql.type(z.object({ xmin: z.string() }))`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`),
      position: 0,
    };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let wrote!: (id: string) => void;
    const written = new Promise<string>((resolve) => (wrote = resolve));
    const slow = db.transaction(async (tx) => {
      wrote(await recordEvent(tx, { type: 'signature.created', actor: { type: 'system', id: null }, petitionId: petition, data: {} }));
      await held;
    });
    const early = await written;
    const late = await emitEvent(petition, 'signature.created');
    const ours = (events: readonly LoggedEvent[]) => events.map((event) => event.id).filter((id) => id === early || id === late);

    // The later event is committed, but held back behind the running transaction, and the reader knows it waits.
    expect(ours(await readAfter(db, start, 100_000))).to.deep.equal([]);
    expect(await waitingBehindHorizon(db, start)).to.equal(true);

    release();
    await slow;
    const [first, second] = await db.manyFirst(sql.type(z.object({ position: z.number() }))`
      SELECT position FROM events WHERE id = ANY(${sql.array([early, late], 'uuid')}) ORDER BY position`);
    expect(first).to.be.below(second!);
    // Both are read once the early transaction ended (another transaction of the cluster may hold them a moment longer).
    const read = await eventually(async () => {
      const ids = ours(await readAfter(db, start, 100_000));
      return ids.length === 2 ? ids : undefined;
    }, 20_000);
    expect(read).to.deep.equal([early, late]);
  });

  it('gives an event a notification wants its data and its petition’s creator and title, and passes over the data of one nobody wants', async () => {
    const { db } = testEnvironment();
    const creator = await insertUserRow('outbox-wanted');
    const petition = await createPetitionRow(creator, 'A petition whose milestone is announced');
    const start = {
      transaction_id: await db.oneFirst(sql.type(z.object({ xmin: z.string() }))`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`),
      position: 0,
    };
    // The milestone is a type notifications want; signature.anonymized only an endpoint that opted in to it, which other tests of this
    // database may have left: the rule is that nobody wanting it means no data.
    const unwanted = await emitEvent(petition, 'signature.anonymized', { count: 1 });
    const someoneWants = await db.oneFirst(sql.type(z.object({ wanted: z.boolean() }))`
      SELECT EXISTS (SELECT FROM webhook_endpoints WHERE is_active AND events @> ARRAY['signature.anonymized']) AS wanted`);
    const milestone = await emitEvent(petition, 'signature.milestone', { threshold: 100 });
    const read = await eventually(async () => {
      const events = (await readAfter(db, start, 100_000)).filter((event) => event.id === unwanted || event.id === milestone);
      return events.length === 2 ? events : undefined;
    }, 20_000);
    const [first, second] = read;
    if (!someoneWants) expect([first!.data, first!.creator_id, first!.petition_title]).to.deep.equal([null, null, null]);
    expect(second!.data).to.include({ threshold: 100 });
    expect([second!.creator_id, second!.petition_title]).to.deep.equal([creator, 'A petition whose milestone is announced']);
  });
});
