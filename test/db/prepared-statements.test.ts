// Named statements (db/sql.ts `prepared`, db/pool.ts `preparedStatements`, RALLY_DB_PREPARED_STATEMENTS): with the setting on, a hot statement is prepared once
// per connection and its plan kept; off (behind a PgBouncer that cannot carry them), the same statement goes unnamed and nothing is prepared. The signing
// statement, the hottest of them, signs exactly through a pool that prepares it, past the fifth execution where PostgreSQL may switch to its generic plan.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createSignBatcher } from '../../core/signatures/sign-batcher.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { prepared, sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { createPetitionRow } from '../support/events.ts';
import { createTestUser } from '../support/identity.ts';

const NOWHERE = { city: null, region: null, country: null, latitude: null, longitude: null };
const probe = prepared('rally_test_probe', sql.type(z.object({ answer: z.number() }))`SELECT 42 AS answer`);

/** The names of the statements prepared on the connection that ran the probe. */
const preparedAfterProbe = (pool: DatabasePool) =>
  pool.connect(async (connection) => {
    expect(await connection.oneFirst(probe)).to.equal(42);
    return connection.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM pg_prepared_statements`);
  });

describe('named statements (db/pool.ts preparedStatements)', function () {
  this.timeout(60_000);
  let named: DatabasePool;
  let unnamed: DatabasePool;

  before(async () => {
    named = await createDatabasePool(testEnvironment().databaseUrl, { maximumPoolSize: 1, preparedStatements: true });
    unnamed = await createDatabasePool(testEnvironment().databaseUrl, { maximumPoolSize: 1 });
  });
  after(async () => {
    await named.end();
    await unnamed.end();
  });

  it('prepares a statement marked prepared once per connection when the setting is on', async () => {
    expect(await preparedAfterProbe(named)).to.include('rally_test_probe');
    expect(await preparedAfterProbe(named), 'the second call reuses it').to.include('rally_test_probe');
  });

  it('sends it unnamed when the setting is off, as behind PgBouncer before 1.21', async () => {
    expect(await preparedAfterProbe(unnamed)).to.deep.equal([]);
  });

  it('signs exactly through the prepared signing statement, batch after batch', async () => {
    const petitionId = await createPetitionRow((await createTestUser()).id);
    const signatures = createSignBatcher(named, { windowMs: 50, maxSize: 10 });
    for (let batch = 0; batch < 8; batch += 1) {
      const signers = await Promise.all([1, 2, 3].map(() => createTestUser({ email: `prepared-${randomUUID().slice(0, 8)}@users.example` })));
      await Promise.all(
        signers.map(({ id }) =>
          signatures.sign({
            input: {
              petitionId,
              userId: id,
              viewer: { userId: id, role: 'user', administeredOrganizationIds: [] },
              actor: { type: 'user', id },
              comment: null,
              isAnonymous: false,
              displayLocation: null,
              place: NOWHERE,
              referrerSlug: null,
              accessCode: null,
            },
          }),
        ),
      );
    }
    await signatures.stop();
    const names = await named.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM pg_prepared_statements`);
    expect(names).to.include('rally_sign_batch');
    const counted = await named.oneFirst(sql.type(z.object({ counted: z.number() }))`
      SELECT COALESCE(sum(count), 0)::int AS counted FROM signature_counters WHERE petition_id = ${petitionId}`);
    expect(counted).to.equal(24);
  });
});
