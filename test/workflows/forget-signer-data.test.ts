// Forget signers' details when a petition is done (issue 46): RALLY_SIGNER_DATA_RETENTION (180 days by
// default) after a petition closed, the forgetSignerData workflow strips its signatures' personal
// columns; the count and the breakdown by country stay as they were, and open or recent petitions keep theirs.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { forgetSignerData } from '../../workflows/index.ts';
import { testEnvironment } from '../support/environment.ts';
import { captureHistory, createTestWorker, uniqueTaskQueue } from '../support/workflows.ts';

const SIGNATURES = 100_000;
const CHUNK = 10_000;
const COUNTRIES = ['FR', 'DE', 'GB', 'US', 'BR', 'IN', 'KE'];
// What identifies or describes a signer (the issue: only petition, time and country stay).
const PERSONAL = ['user_id', 'comment', 'display_location', 'city', 'region', 'latitude', 'longitude', 'email_key', 'network_hash'];

describe('workflow forgetSignerData', function () {
  this.timeout(600_000);

  async function seedPetition(status: string, closedAgo: string | null, signatures: number): Promise<string> {
    const { db } = testEnvironment();
    const tag = randomUUID().slice(0, 8);
    const creator = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
      VALUES ('seed', ${`creator-${tag}`}, ${`creator-${tag}@example.test`}, 'Seed creator', ${`seed-creator-${tag}`}) RETURNING id`);
    const petition = await db.oneFirst(sql.type(z.object({ id: z.string() }))`
      INSERT INTO petitions (slug, title, description, status, creator_id, published_at, closed_at)
      VALUES (${`seeded-${tag}`}, 'A seeded petition', ${'A petition seeded in SQL for the signer-data retention test. '.repeat(2)}, ${status},
              ${creator}, now() - interval '400 days', ${closedAgo === null ? null : sql.fragment`now() - ${closedAgo}::interval`})
      RETURNING id`);
    // The people and their signatures, every personal column filled, in statements of at most CHUNK
    // people: each well within the pool's statement timeout on a machine loaded by the rest of the suite.
    for (let first = 1; first <= signatures; first += CHUNK) {
      const last = Math.min(signatures, first + CHUNK - 1);
      await db.query(sql.typeAlias('void')`
        WITH signers AS (
          INSERT INTO users (identity_issuer, identity_subject, email, display_name, slug)
          SELECT 'seed', ${tag} || '-' || n, ${tag} || '-' || n || '@example.test', 'Signer ' || n, ${tag} || '-signer-' || n
          FROM generate_series(${first}::int, ${last}::int) n
          RETURNING id, slug, email, split_part(identity_subject, '-', 2)::int AS n
        )
        INSERT INTO signatures (
          petition_id, user_id, comment, display_location, city, region, country, latitude, longitude, email_key, network_hash, source, created_at
        )
        SELECT ${petition}, u.id, 'because ' || u.slug, 'Somewhere', 'City ' || (u.n % 50), 'Region',
               (${sql.array(COUNTRIES, 'text')})[1 + u.n % ${COUNTRIES.length}],
               48.8, 2.3, u.email, decode(md5(u.slug), 'hex'), 'newsletter', now() - interval '300 days'
        FROM signers u`);
    }
    return petition;
  }

  const byCountry = (petitionId: string) =>
    testEnvironment().db.any(sql.type(z.object({ country: z.string().nullable(), signatures: z.number() }))`
      SELECT country, count(*)::int AS signatures FROM signatures WHERE petition_id = ${petitionId} GROUP BY country ORDER BY country`);
  const withPersonalData = (petitionId: string) =>
    testEnvironment().db.oneFirst(sql.type(z.object({ count: z.number() }))`
      SELECT count(*)::int FROM signatures WHERE petition_id = ${petitionId}
        AND (${sql.join(
          PERSONAL.map((column) => sql.fragment`${sql.identifier([column])} IS NOT NULL`),
          sql.fragment` OR `,
        )} OR NOT is_anonymous)`);

  it('strips the personal columns of a petition closed past the retention, keeping its counts by country', async () => {
    const { db, temporal } = testEnvironment();
    const done = await seedPetition('closed', '181 days', SIGNATURES);
    const recent = await seedPetition('victory', '10 days', 50);
    const open = await seedPetition('active', null, 50);
    const before = await byCountry(done);
    expect(before.reduce((sum, row) => sum + row.signatures, 0)).to.equal(SIGNATURES);

    const taskQueue = uniqueTaskQueue('forget-signer-data');
    const worker = await createTestWorker(taskQueue);
    const result = await worker.runUntil(async () => {
      const handle = await temporal.client.workflow.start(forgetSignerData, { taskQueue, workflowId: `forget-signer-data-test-${taskQueue}` });
      const outcome = await handle.result();
      await captureHistory('forget-signer-data', handle);
      return outcome;
    });

    expect(result).to.include({ petitions: 1, stripped: SIGNATURES });
    expect(await byCountry(done)).to.deep.equal(before);
    expect(await withPersonalData(done)).to.equal(0);
    expect(await withPersonalData(recent)).to.equal(50);
    expect(await withPersonalData(open)).to.equal(50);
    const marked = await db.any(sql.type(z.object({ id: z.string(), deleted: z.boolean() }))`
      SELECT id, signer_data_deleted_at IS NOT NULL AS deleted FROM petitions WHERE id IN (${done}, ${recent}, ${open})`);
    expect(Object.fromEntries(marked.map((row) => [row.id, row.deleted]))).to.deep.equal({ [done]: true, [recent]: false, [open]: false });
  });
});
