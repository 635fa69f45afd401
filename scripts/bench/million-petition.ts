// One petition with 1,000,000 signatures, for the benchmarks issues 11 and 14 ask for at that size: invalidating 100,000 of them, and its analytics over two
// years by day. Seeded once with set-based SQL (a marker row in bench_million_petition; an advisory lock makes two runs seed once). Each call first puts back
// what an earlier run invalidated, so every run starts from the same million.
import pg from 'pg';
import { COUNTER_SHARDS } from '../../core/signatures/sign.ts';

export const MILLION = 1_000_000;
// The petition's 1,000,000 signers are users of its own, one in ten (FRAUD_SHARE) with an address at
// FRAUD_DOMAIN; signatures spread over the last two years.
export const FRAUD_DOMAIN = 'fraud.bench.invalid';
export const FRAUD_SHARE = 10;
const ISSUER = 'rally-bench-million';
const CHUNK = 100_000;
const LOCK_KEY = 'rally-bench-million';
const seededUuid = (key: string): string => `overlay(overlay(md5(${key}) placing '4' from 13) placing '8' from 17)::uuid`;
const PETITION_ID = `(SELECT ${seededUuid("'rally-bench-million-petition'")})`;

type Log = (line: string) => void;

const SEED_STATEMENTS = [
  `INSERT INTO users (id, identity_issuer, identity_subject, email, display_name, slug)
   VALUES (${seededUuid("'rally-bench-million-creator'")}, '${ISSUER}', 'creator', 'creator@example.invalid', 'Million creator', 'bench-million-creator')`,
  `INSERT INTO petitions (id, slug, title, description, status, creator_id, visibility, signature_goal, created_at, published_at)
   VALUES (${PETITION_ID}, 'bench-million-signatures', 'A petition with a million signatures (benchmark)',
     'Seeded for the invalidation and analytics benchmarks: one million signatures over two years.', 'active',
     ${seededUuid("'rally-bench-million-creator'")}, 'public', 2000000, now() - interval '731 days', now() - interval '730 days')`,
];

const INSERT_CHUNK = `
  WITH signers AS (
    INSERT INTO users (id, identity_issuer, identity_subject, email, display_name, slug)
    SELECT ${seededUuid("'rally-bench-million-user-' || i")}, '${ISSUER}', 'm-' || i,
      'm-' || i || CASE WHEN i % ${FRAUD_SHARE} = 0 THEN '@${FRAUD_DOMAIN}' ELSE '@example.invalid' END, 'Million signer ' || i, 'bench-million-' || i
    FROM generate_series($1::int, $2::int - 1) AS i
    RETURNING id, email
  )
  INSERT INTO signatures (petition_id, user_id, email_key, country, created_at)
  SELECT ${PETITION_ID}, id, rally_email_key(email), (ARRAY['DE', 'FR', 'GB', 'US', 'BR', 'IN'])[1 + abs(hashtext(email)) % 6],
    date_trunc('milliseconds', now() - random() * interval '729 days')
  FROM signers`;

const COUNTERS = `
  INSERT INTO signature_counters (petition_id, shard, count)
  SELECT ${PETITION_ID}, s, ${MILLION / COUNTER_SHARDS} FROM generate_series(0, ${COUNTER_SHARDS - 1}) AS s`;

// What earlier runs invalidated goes back into the count; the shards are then made exact again.
const RESTORE = `
  WITH moved AS (
    DELETE FROM invalidated_signatures WHERE petition_id = ${PETITION_ID}
    RETURNING id, petition_id, user_id, comment, is_anonymous, display_location, city, region, country, latitude,
    longitude, referrer_id, email_key, network_hash, created_at
  )
  INSERT INTO signatures (id, petition_id, user_id, comment, is_anonymous, display_location, city, region,
  country, latitude, longitude, referrer_id, email_key, network_hash, created_at)
  SELECT * FROM moved`;
const RECOUNT = `
  WITH cleared AS (DELETE FROM signature_counters WHERE petition_id = ${PETITION_ID} RETURNING 1)
  INSERT INTO signature_counters (petition_id, shard, count)
  SELECT ${PETITION_ID}, 0, (SELECT count(*) FROM signatures WHERE petition_id = ${PETITION_ID}) FROM (SELECT count(*) FROM cleared) AS done`;

/** The million-signature petition's id, seeded on first use; previous invalidations undone. */
export async function ensureMillionPetition(databaseUrl: string, log: Log): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS bench_million_petition (petition_id uuid PRIMARY KEY, seconds double precision NOT NULL)');
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_KEY]);
    try {
      const seeded = await client.query<{ petition_id: string }>('SELECT petition_id FROM bench_million_petition');
      if (!seeded.rows[0]) {
        log(`seeding a petition with ${MILLION.toLocaleString('en-US')} signatures of its own users (once; kept in the bench database)`);
        const started = performance.now();
        await client.query('BEGIN');
        try {
          await client.query('SET LOCAL synchronous_commit = off');
          for (const statement of SEED_STATEMENTS) await client.query(statement);
          for (let from = 0; from < MILLION; from += CHUNK) {
            await client.query(INSERT_CHUNK, [from, from + CHUNK]);
            log(`million petition: ${(from + CHUNK).toLocaleString('en-US')} signatures`);
          }
          await client.query(COUNTERS);
          await client.query(`INSERT INTO bench_million_petition (petition_id, seconds) SELECT ${PETITION_ID}, $1`, [(performance.now() - started) / 1000]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        const seconds = (performance.now() - started) / 1000;
        await client.query('VACUUM (ANALYZE) signatures');
        log(`million petition seeded in ${seconds.toFixed(1)} s`);
      }
      const restored = await client.query(RESTORE);
      if (restored.rowCount) log(`million petition: ${restored.rowCount.toLocaleString('en-US')} signatures invalidated by an earlier run put back`);
      await client.query(RECOUNT);
      const { rows } = await client.query<{ id: string }>(`SELECT ${PETITION_ID}::text AS id`);
      return rows[0]!.id;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}
