// The bench data set: 100,000 petitions and 1,000,000 signatures of 50,000 users in `rally_bench`, made with set-based SQL in one transaction. ensureSeeded()
// is idempotent: a marker row in bench_seed says the data is there (an advisory lock makes two concurrent runs seed once). On its own:
// `DATABASE_URL=postgres://…/rally_bench node scripts/bench/seed.ts`
import pg from 'pg';
import { createRankingActivities } from '../../activities/rankings.ts';
import { COUNTER_SHARDS } from '../../core/signatures/sign.ts';
import { foldSignatureBatch } from '../../core/analytics/fold.ts';
import { createDatabasePool } from '../../db/pool.ts';

export const SEED = Object.freeze({ version: 1, users: 50_000, petitions: 100_000, signatures: 1_000_000 });
/** identity_issuer of every seeded user: how scenarios tell seeded rows from others. */
export const SEED_ISSUER = 'rally-bench-seed';

// Each petition's signers are users offset + k·STRIDE (mod users), k < count: distinct as long as
// count ≤ users and STRIDE is coprime with the number of users (7919 is a prime, 50,000 = 2⁴·5⁵).
const USER_STRIDE = 7_919;
const MAX_PER_PETITION = 45_000;
const POWER_LAW_EXPONENT = 0.9;
const CHUNK_SIGNATURES = 50_000;
const LOCK_KEY = 'rally-bench-seed';

type Log = (line: string) => void;

/**
 * A deterministic id for seeded row `key` (an SQL text expression): its MD5, with the version and
 * variant bits of a version-4 UUID so that the API's schemas accept it.
 */
const seededUuid = (key: string): string => `overlay(overlay(md5(${key}) placing '4' from 13) placing '8' from 17)::uuid`;

/** A progress bar on stderr: redrawn in place on a terminal, one line per step otherwise. */
function createProgress(title: string) {
  const started = performance.now();
  const tty = process.stderr.isTTY === true;
  let lastLine = '';
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  return {
    update(fraction: number, label: string): void {
      const width = 30;
      const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
      const line = `${title} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}% ${label}`;
      if (tty) process.stderr.write(`\r${line} (${elapsed()})\u001b[K`);
      else if (line !== lastLine) process.stderr.write(`${line} (${elapsed()})\n`);
      lastLine = line;
    },
    done(): number {
      this.update(1, 'done');
      if (tty) process.stderr.write('\n');
      return (performance.now() - started) / 1000;
    },
  };
}

const MARKER_TABLE = `
  CREATE TABLE IF NOT EXISTS bench_seed (
    version integer PRIMARY KEY,
    users integer NOT NULL,
    petitions integer NOT NULL,
    signatures integer NOT NULL,
    loaded_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    seconds double precision
  )`;

// Shaped like a real site's: 80% of petitions active, the rest closed, victorious, draft or under review; 92%
// public; signatures spread with a power law over the signable petitions (the top one has tens of thousands,
// most have a handful), dated between publication and now with a bias to recent days.
// One row per petition with everything derived from its number i; random() is seeded, so every
// seeding makes the same data set (up to the dates, which are relative to now()).
const PLAN_PETITIONS = `
  CREATE TEMP TABLE seed_petitions ON COMMIT DROP AS
  WITH topics(n, topic, tag) AS (
    SELECT n - 1, topic, tag FROM unnest(ARRAY[
      'protect the river', 'fund local libraries', 'safe bike lanes', 'ban single-use plastic', 'free school meals',
      'save the old cinema', 'clean air for our kids', 'fair rents now', 'keep the night buses', 'open the park at night',
      'stop the landfill', 'plant ten thousand trees', 'four-day school week', 'protect the wetlands', 'more nurses now',
      'rural broadband', 'quiet hours for leaf blowers', 'accessible stations', 'no to the toll road', 'save the bees'
    ], ARRAY['environment', 'education', 'transport', 'environment', 'education', 'local', 'health', 'economy', 'transport',
      'local', 'environment', 'environment', 'education', 'animals', 'health', 'technology', 'local', 'transport', 'politics',
      'animals']) WITH ORDINALITY AS t(topic, tag, n)
  ), categories_in_order AS (
    SELECT array_agg(id ORDER BY slug) AS ids FROM categories
  ), base AS (
    SELECT i, random() AS r_status, random() AS r_visibility, random() AS r_privacy, random() AS r_goal, random() AS r_rank,
      random() AS r_closed, random() AS r_place, floor(random() * $1::int)::int AS user_offset,
      date_trunc('milliseconds', now() - random() * interval '730 days') AS created_at
    FROM generate_series(0, $2::int - 1) AS i
  ), shaped AS (
    SELECT b.*, t.topic, t.tag, c.ids[1 + b.i % cardinality(c.ids)] AS category_id,
      CASE WHEN r_status < 0.80 THEN 'active' WHEN r_status < 0.90 THEN 'closed' WHEN r_status < 0.94 THEN 'victory'
           WHEN r_status < 0.98 THEN 'draft' ELSE 'under_review' END AS status
    FROM base b JOIN topics t ON t.n = b.i % 20 CROSS JOIN categories_in_order c
  )
  SELECT i, ${seededUuid("'rally-bench-petition-' || i")} AS id, ${seededUuid(`'rally-bench-user-' || ((i * ${USER_STRIDE}) % $1::int)`)} AS creator_id,
    status, topic, tag, category_id, user_offset, r_rank, r_place, created_at,
    CASE WHEN r_visibility < 0.92 THEN 'public' WHEN r_visibility < 0.96 THEN 'unlisted' ELSE 'private' END AS visibility,
    CASE WHEN r_privacy < 0.90 THEN 'public' WHEN r_privacy < 0.95 THEN 'creator_only' ELSE 'count_only' END AS signature_privacy,
    CASE WHEN r_goal < 0.6 THEN (1000 * (1 + floor(r_goal * 100)))::int END AS signature_goal,
    CASE WHEN status = 'draft' THEN NULL ELSE LEAST(now(), created_at + interval '1 hour') END AS published_at,
    CASE WHEN status IN ('closed', 'victory') THEN LEAST(now(), created_at + interval '1 hour')
      + (now() - LEAST(now(), created_at + interval '1 hour')) * r_closed END AS closed_at,
    0::integer AS signature_count, 0::bigint AS cum_start
  FROM shaped`;

// Signature counts: a power law over the signable petitions in random order, at least one each,
// adjusted so that they add up to exactly the target.
const PLAN_COUNTS = `
  WITH signable AS (
    SELECT id, row_number() OVER (ORDER BY r_rank, i) AS r FROM seed_petitions WHERE status IN ('active', 'closed', 'victory')
  ), weighted AS (
    SELECT id, r, power(r, -${POWER_LAW_EXPONENT}) AS w FROM signable
  ), totals AS (
    SELECT sum(w) AS sw, count(*) AS n FROM weighted
  ), first_pass AS (
    SELECT id, r, LEAST(${MAX_PER_PETITION}, 1 + floor(w / sw * ($1::int - n))::int) AS c FROM weighted, totals
  ), remainder AS (
    SELECT $1::int - sum(c) AS missing FROM first_pass
  ), counted AS (
    SELECT id, r, c + CASE WHEN r BETWEEN 2 AND missing + 1 THEN 1 ELSE 0 END AS c FROM first_pass, remainder
  ), placed AS (
    SELECT id, c, sum(c) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) - c AS cum_start FROM counted
  )
  UPDATE seed_petitions sp SET signature_count = placed.c, cum_start = placed.cum_start FROM placed WHERE sp.id = placed.id`;

const CITIES = `
  CREATE TEMP TABLE seed_cities ON COMMIT DROP AS
  SELECT n, city, region, country, lat, lng FROM (VALUES
    (0, 'Berlin', 'Berlin', 'DE', 52.52, 13.405), (1, 'Paris', 'Île-de-France', 'FR', 48.857, 2.352), (2, 'London', 'England', 'GB', 51.507, -0.128),
    (3, 'New York', 'New York', 'US', 40.713, -74.006), (4, 'São Paulo', 'São Paulo', 'BR', -23.551, -46.633), (5, 'Lagos', 'Lagos', 'NG', 6.524, 3.379),
    (6, 'Mumbai', 'Maharashtra', 'IN', 19.076, 72.878), (7, 'Tokyo', 'Tokyo', 'JP', 35.676, 139.65), (8, 'Sydney', 'New South Wales', 'AU', -33.869, 151.209),
    (9, 'Toronto', 'Ontario', 'CA', 43.653, -79.383)
  ) AS t(n, city, region, country, lat, lng)`;

const INSERT_USERS = `
  INSERT INTO users (id, identity_issuer, identity_subject, email, display_name, slug, bio, petition_count, email_verified, created_at, updated_at)
  SELECT ${seededUuid("'rally-bench-user-' || i")}, $2, 'seed-' || i, 'seed-' || i || '@example.invalid', 'Seed signer ' || i, 'bench-seed-' || i,
    CASE WHEN i % 5 = 0 THEN 'Seeded for the benchmark.' END, 0, true, at, at
  FROM generate_series(0, $1::int - 1) AS i, LATERAL (SELECT date_trunc('milliseconds', now() - random() * interval '3 years') AS at) AS t`;

const USER_PETITION_COUNTS = `
  UPDATE users u SET petition_count = n.count FROM (SELECT creator_id, count(*) AS count FROM seed_petitions GROUP BY creator_id) AS n
  WHERE u.id = n.creator_id`;

const INSERT_PETITIONS = `
  INSERT INTO petitions (id, slug, title, description, status, creator_id, category_id, tags, signature_goal, visibility, access_code,
    location_city, location_country, signature_privacy, victory_message, signature_count, created_at, updated_at, published_at, closed_at)
  SELECT sp.id, 'bench-' || replace(sp.topic, ' ', '-') || '-' || sp.i, initcap(sp.topic) || ' (petition ' || sp.i || ')',
    'We, the undersigned, ask the council to ' || sp.topic || '. Petition ' || sp.i || ' of the benchmark data set, seeded to look like real traffic.',
    sp.status, sp.creator_id, sp.category_id, ARRAY[sp.tag, 'bench'], sp.signature_goal, sp.visibility,
    CASE WHEN sp.visibility = 'private' THEN 'code-' || sp.i END, c.city, c.country, sp.signature_privacy,
    CASE WHEN sp.status = 'victory' THEN 'We won. Thank you all.' END, sp.signature_count, sp.created_at,
    COALESCE(sp.closed_at, sp.published_at, sp.created_at), sp.published_at, sp.closed_at
  FROM seed_petitions sp LEFT JOIN seed_cities c ON c.n = sp.i % 25
  ORDER BY sp.i`;

// Signatures of the petitions whose first signature falls in [$1, $2) of the running total.
const INSERT_SIGNATURES = `
  INSERT INTO signatures (petition_id, user_id, comment, is_anonymous, city, region, country, latitude, longitude, created_at)
  SELECT sp.id, ${seededUuid(`'rally-bench-user-' || ((sp.user_offset + k * ${USER_STRIDE}) % $3::int)`)},
    CASE WHEN k % 10 = 3 THEN 'Signed while seeding the benchmark.' END, k % 20 = 7, c.city, c.region, c.country, c.lat, c.lng,
    date_trunc('milliseconds', end_at - (end_at - sp.published_at) * power(random(), 3))
  FROM seed_petitions sp
  CROSS JOIN LATERAL (SELECT COALESCE(sp.closed_at, now()) AS end_at) AS e
  CROSS JOIN LATERAL generate_series(0, sp.signature_count - 1) AS k
  LEFT JOIN seed_cities c ON c.n = (k + sp.i) % 16
  WHERE sp.signature_count > 0 AND sp.cum_start >= $1 AND sp.cum_start < $2
  ORDER BY sp.id`;

// The derived columns agree with the signatures: signature_counters (16 shards, the live count),
// petitions.signature_count (the rolled-up copy for popular) and trending_score (computed by the real rankings
// activity), users.petition_count.
// The live count, as signing keeps it: spread evenly over the shards.
const INSERT_COUNTERS = `
  INSERT INTO signature_counters (petition_id, shard, count)
  SELECT sp.id, s, sp.signature_count / $1::int + CASE WHEN s < sp.signature_count % $1::int THEN 1 ELSE 0 END
  FROM seed_petitions sp CROSS JOIN generate_series(0, $1::int - 1) AS s
  WHERE sp.signature_count / $1::int + CASE WHEN s < sp.signature_count % $1::int THEN 1 ELSE 0 END > 0`;

export type SeedOutcome = { seeded: boolean; seconds: number };

async function seedInTransaction(client: pg.Client, progress: ReturnType<typeof createProgress>): Promise<void> {
  await client.query('SET LOCAL synchronous_commit = off');
  await client.query("SET LOCAL work_mem = '64MB'");
  await client.query('SELECT setseed(0.4242)');

  progress.update(0.01, 'users');
  await client.query(INSERT_USERS, [SEED.users, SEED_ISSUER]);
  progress.update(0.04, 'planning petitions');
  await client.query(PLAN_PETITIONS, [SEED.users, SEED.petitions]);
  await client.query(PLAN_COUNTS, [SEED.signatures]);
  const planned = await client.query<{ total: string }>('SELECT sum(signature_count)::bigint AS total FROM seed_petitions');
  if (Number(planned.rows[0]?.total) !== SEED.signatures) throw new Error(`seed plan adds up to ${planned.rows[0]?.total} signatures, not ${SEED.signatures}`);
  await client.query(CITIES);
  await client.query(USER_PETITION_COUNTS);

  progress.update(0.06, 'petitions');
  await client.query(INSERT_PETITIONS);
  progress.update(0.12, 'signature counters');
  await client.query(INSERT_COUNTERS, [COUNTER_SHARDS]);

  const chunks = Math.ceil(SEED.signatures / CHUNK_SIGNATURES);
  for (let chunk = 0; chunk < chunks; chunk += 1) {
    progress.update(
      0.15 + (0.75 * chunk) / chunks,
      `signatures ${(chunk * CHUNK_SIGNATURES).toLocaleString('en-US')} of ${SEED.signatures.toLocaleString('en-US')}`,
    );
    await client.query(INSERT_SIGNATURES, [chunk * CHUNK_SIGNATURES, (chunk + 1) * CHUNK_SIGNATURES, SEED.users]);
  }
  await client.query('INSERT INTO bench_seed (version, users, petitions, signatures) VALUES ($1, $2, $3, $4)', [
    SEED.version,
    SEED.users,
    SEED.petitions,
    SEED.signatures,
  ]);
}

/**
 * Makes sure the bench database holds the seeded data set; seeds it when it does not. Cheap when
 * already seeded (one indexed lookup). Returns whether this call seeded, and how long it took.
 */
async function seedOnce(databaseUrl: string, log: Log): Promise<SeedOutcome> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(MARKER_TABLE);
    const done = await client.query('SELECT 1 FROM bench_seed WHERE version = $1 AND completed_at IS NOT NULL', [SEED.version]);
    if (done.rowCount) return { seeded: false, seconds: 0 };

    log(
      `seeding ${SEED.petitions.toLocaleString('en-US')} petitions and ` +
        `${SEED.signatures.toLocaleString('en-US')} signatures of ${SEED.users.toLocaleString('en-US')} users ` +
        `(once; kept in the bench database)`,
    );
    const progress = createProgress('seed');
    // Session-level lock: a second bench run waits here, then finds the marker.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_KEY]);
    try {
      const loaded = await client.query<{ complete: boolean }>('SELECT completed_at IS NOT NULL AS complete FROM bench_seed WHERE version = $1', [
        SEED.version,
      ]);
      if (loaded.rows[0]?.complete) {
        progress.done();
        log('another bench run seeded meanwhile');
        return { seeded: false, seconds: 0 };
      }
      if (!loaded.rowCount) {
        await client.query('BEGIN');
        try {
          await seedInTransaction(client, progress);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          if ((error as { code?: string }).code === '23505') {
            throw new Error(
              `rally_bench already holds seeded rows without a bench_seed marker; drop the database and run again (${(error as Error).message})`,
              { cause: error },
            );
          }
          throw error;
        }
      }
      // Outside the load transaction: the real rankings activity over the committed signatures,
      // then statistics and the visibility map (the planner and index-only scans need them).
      progress.update(0.9, 'trending scores (rankings activity)');
      const db = await createDatabasePool(databaseUrl, { maximumPoolSize: 1, statementTimeoutMs: 600_000 });
      try {
        await createRankingActivities({ db }).refreshTrendingScores();
      } finally {
        await db.end();
      }
      progress.update(0.95, 'vacuum analyze');
      for (const table of ['users', 'petitions', 'signatures', 'signature_counters']) await client.query(`VACUUM (ANALYZE) ${table}`);
      const seconds = progress.done();
      await client.query('UPDATE bench_seed SET completed_at = now(), seconds = $2 WHERE version = $1', [SEED.version, seconds]);
      log(`seeded in ${seconds.toFixed(1)} s`);
      return { seeded: true, seconds };
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

if (import.meta.main) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    process.stderr.write('seed: set DATABASE_URL to the bench database (npm run bench makes and migrates rally_bench)\n');
    process.exit(78);
  }
  const outcome = await ensureSeeded(databaseUrl, (line) => process.stdout.write(`seed: ${line}\n`));
  if (!outcome.seeded) process.stdout.write('seed: already seeded; nothing to do\n');
}

const FOLD_BATCH = 50_000;

/**
 * Seeded once, and the analytics rollup queue folded (the seed's million signatures queue a million
 * changes): otherwise the once-a-minute fold would spend the measured rows working through that
 * backlog, and PostgreSQL's CPU per signature would carry it instead of the fold of what was signed.
 */
export async function ensureSeeded(databaseUrl: string, log: Log): Promise<SeedOutcome> {
  const outcome = await seedOnce(databaseUrl, log);
  const db = await createDatabasePool(databaseUrl, { maximumPoolSize: 1, statementTimeoutMs: 600_000 });
  try {
    let folded = 0;
    for (let count = await foldSignatureBatch(db, FOLD_BATCH); count > 0; count = await foldSignatureBatch(db, FOLD_BATCH)) {
      folded += count;
      if (folded === count) log('folding the analytics rollup queue left by earlier runs and the seed…');
    }
    if (folded > 0) log(`folded ${folded.toLocaleString('en-US')} queued signature changes`);
  } finally {
    await db.end();
  }
  return outcome;
}
