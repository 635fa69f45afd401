// Migration 0046 moves the outbox into a table partitioned by day and read past a stored position. Run on a database migrated up to 0045 that holds events as
// they were: some dispatched, some not. Every row must come over with its id, position and data, and the dispatcher must go on from the first event it had not
// dispatched.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import pg from 'pg';
import { listMigrations, MIGRATIONS_DIR } from '../../../db/migrate.ts';
import { testEnvironment } from '../../support/environment.ts';
import { withDatabase } from '../../support/shared-services.ts';

const MIGRATION = '0046_outbox_as_a_log.sql';

describe('migration 0046: the outbox as a log', function () {
  this.timeout(180_000);
  const name = `rally_m0046_${randomBytes(4).toString('hex')}`;
  const admin = () => new pg.Client({ connectionString: withDatabase(testEnvironment().databaseUrl, 'postgres') });
  let client: pg.Client;

  before(async () => {
    const maintenance = admin();
    await maintenance.connect();
    await maintenance.query(`CREATE DATABASE ${name}`).finally(() => maintenance.end());
    client = new pg.Client({ connectionString: withDatabase(testEnvironment().databaseUrl, name) });
    await client.connect();
    for (const file of (await listMigrations()).filter((file) => file < MIGRATION)) {
      await client.query(`BEGIN; ${await readFile(`${MIGRATIONS_DIR}${file}`, 'utf8')}; COMMIT`);
    }
  });

  after(async () => {
    await client?.end();
    const maintenance = admin();
    await maintenance.connect();
    await maintenance.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => maintenance.end());
  });

  it('moves every event, keeps ids, positions and data, and starts the dispatcher at the first undispatched one', async () => {
    // Six events of today, the 3rd and 5th not dispatched yet, and one from last year.
    await client.query(`
      INSERT INTO events (type, actor_type, data, trace_context, dispatched_at)
      SELECT 'petition.updated', 'system', jsonb_build_object('n', n), '{"traceparent":"00-x"}', CASE WHEN n IN (3, 5) THEN NULL ELSE now() END
      FROM generate_series(1, 6) n ORDER BY n;
      INSERT INTO events (type, actor_type, data, occurred_at, dispatched_at) VALUES ('petition.created', 'user', '{"n":0}', now() - interval '1 year', now());
    `);
    const before = (await client.query<{ id: string; position: string; data: object }>('SELECT id, position::text, data FROM events ORDER BY position')).rows;
    await client.query(`BEGIN; ${await readFile(`${MIGRATIONS_DIR}${MIGRATION}`, 'utf8')}; COMMIT`);

    const after = (await client.query<{ id: string; position: string; data: object }>('SELECT id, position::text, data FROM events ORDER BY position')).rows;
    expect(after).to.deep.equal(before);
    const kind = await client.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE relname = 'events'`);
    expect(kind.rows[0]!.relkind).to.equal('p');
    const cursor = await client.query<{ position: string }>(`SELECT position::text FROM event_consumers WHERE name = 'dispatcher'`);
    expect(Number(cursor.rows[0]!.position)).to.equal(Number(before[2]!.position) - 1);

    // A new event comes after them all, with a time-ordered (version 7) id, and lands in today's partition.
    const added = await client.query<{ id: string; position: string; partition: string }>(`
      INSERT INTO events (type, actor_type, data) VALUES ('petition.updated', 'system', '{}')
      RETURNING id, position::text, tableoid::regclass::text AS partition`);
    expect(Number(added.rows[0]!.position)).to.be.above(Math.max(...before.map((row) => Number(row.position))));
    expect(added.rows[0]!.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
    expect(added.rows[0]!.partition).to.equal(`events_${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`);
  });
});
