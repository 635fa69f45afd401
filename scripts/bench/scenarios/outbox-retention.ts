// Issue 43's outbox row: 1,000,000 events appended through the outbox's own insert (in statements of 50,000, as signing batches write theirs), drained by a
// real worker's dispatcher, then the real retention step (roll-event-partitions) run with a clock past RALLY_EVENT_RETENTION. Goal: dead rows ≤ 5 % of live
// ones once dispatched (the dispatcher updates no event), and the table back to what the window holds (none of them) without VACUUM FULL.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../../../db/pool.ts';
import { sql } from '../../../db/sql.ts';
import { insertEvent } from '../../../core/events/record-event.ts';
import { createEventPartitionActivities } from '../../../activities/event-partitions.ts';
import type { LoadResult } from '../load.ts';
import { check, judge, type ResultRow, type Scenario } from '../scenario.ts';
import { startRallyWorker, stopRallyWorker, waitForEmptyOutbox } from '../webhook-kit.ts';

const NAME = 'outbox-retention';
const EVENTS = 1_000_000;
const PER_STATEMENT = 50_000;
const RETENTION_MS = 30 * 86_400_000;
const MAX_DEAD_SHARE = 0.05;
/** What "back to what the window holds" allows: the empty partitions of the days ahead, well under this share of the full table. */
const MAX_SIZE_AFTER_SHARE = 0.01;
const DRAIN_LIMIT_MS = 15 * 60_000;
const NO_LOAD: LoadResult = { requestsPerSecond: 0, p50Ms: 0, p99Ms: 0, errors: 0, timeouts: 0, non2xx: 0, requests: 0, durationSec: 0 };

const Sizes = z.object({ live: z.number(), dead: z.number(), bytes: z.number(), partitions: z.number() });
type Sizes = z.infer<typeof Sizes>;

/** Live and dead rows and bytes (tables, indexes, TOAST) over every partition of `events`. */
function measure(db: DatabasePool): Promise<Sizes> {
  return db.one(sql.type(Sizes)`
    SELECT COALESCE(sum(s.n_live_tup), 0)::float8 AS live, COALESCE(sum(s.n_dead_tup), 0)::float8 AS dead,
      COALESCE(sum(pg_total_relation_size(i.inhrelid)), 0)::float8 AS bytes, count(*)::int AS partitions
    FROM pg_inherits i LEFT JOIN pg_stat_user_tables s ON s.relid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass
  `);
}

/** Appends `EVENTS` signature.created events like the signing statement's, in large statements; returns the seconds taken. */
async function append(db: DatabasePool): Promise<number> {
  const began = performance.now();
  for (let written = 0; written < EVENTS; written += PER_STATEMENT) {
    await db.query(sql.typeAlias('void')`
      WITH made AS (${insertEvent(
        {
          type: sql.fragment`'signature.created'`,
          actorType: sql.fragment`'user'`,
          actorId: sql.fragment`gen_random_uuid()::text`,
          petitionId: sql.fragment`NULL::uuid`,
          data: sql.fragment`jsonb_build_object('id', gen_random_uuid(), 'user_id', gen_random_uuid(), 'is_anonymous', false, 'comment', NULL,
            'created_at', now())`,
        },
        sql.fragment`generate_series(1, ${PER_STATEMENT}) AS n`,
      )}) SELECT FROM made LIMIT 0
    `);
  }
  // The statistics reach pg_stat_user_tables when a session reports them: now, not a second later.
  await db.query(sql.typeAlias('void')`SELECT FROM pg_stat_force_next_flush()`);
  return (performance.now() - began) / 1000;
}

const mb = (bytes: number) => Math.round(bytes / 1e4) / 100;

export const scenario: Scenario = {
  name: NAME,
  goal:
    `events after ${EVENTS.toLocaleString('en-US')} appended and dispatched, then the retention passed: ` +
    `dead rows ≤ ${MAX_DEAD_SHARE * 100} % of live ones; size back to what the window holds (≤ ${MAX_SIZE_AFTER_SHARE * 100} % of before), no VACUUM FULL`,
  async run(env): Promise<ResultRow[]> {
    const db = await createDatabasePool(env.databaseUrl, { maximumPoolSize: 4 });
    const worker = await startRallyWorker(env, `bench-outbox-${randomUUID().slice(0, 8)}`);
    try {
      await waitForEmptyOutbox(db, env.log, DRAIN_LIMIT_MS);
      const appendSeconds = await append(db);
      env.log(`${NAME}: appended ${EVENTS.toLocaleString('en-US')} events in ${appendSeconds.toFixed(1)} s`);
      // The dispatcher reads while they are appended; what is left after the last statement is timed here.
      const drainBegan = performance.now();
      await waitForEmptyOutbox(db, env.log, DRAIN_LIMIT_MS);
      const drainSeconds = (performance.now() - drainBegan) / 1000;
      await sleep(1_500); // the dispatcher's sessions report their statistics within a second of going idle
      const dispatched = await measure(db);
      env.log(`${NAME}: dispatched in ${drainSeconds.toFixed(1)} s; ${dispatched.live} live, ${dispatched.dead} dead rows, ${mb(dispatched.bytes)} MB`);

      // The real retention step, with its clock a day and the retention past the end of today.
      const past = new Date((Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000 + RETENTION_MS + 1_000);
      const roll = createEventPartitionActivities({ db, retentionMs: RETENTION_MS }).maintainEventPartitions;
      const rolled = await roll({ now: past.toISOString() });
      // Today's and the coming days' partitions back, as the next hourly run would make them.
      await roll({});
      const after = await measure(db);
      const left = await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM events`);
      env.log(`${NAME}: dropped ${rolled.dropped.length} partitions; ${left} rows left, ${mb(after.bytes)} MB in ${after.partitions} partitions`);

      const deadShare = dispatched.live > 0 ? dispatched.dead / dispatched.live : 1;
      const sizeShare = dispatched.bytes > 0 ? after.bytes / dispatched.bytes : 1;
      const row = (target: string, extra: Partial<ResultRow>): ResultRow => ({
        ...NO_LOAD,
        requests: EVENTS,
        durationSec: appendSeconds + drainSeconds,
        requestsPerSecond: EVENTS / (appendSeconds + drainSeconds),
        scenario: NAME,
        target,
        ratio: null,
        goal: null,
        verdict: null,
        ...extra,
      });
      return [
        row(`events: ${EVENTS.toLocaleString('en-US')} appended and dispatched (events/s), then the retention passed`, {
          ratio: deadShare,
          goal: `dead ≤ ${MAX_DEAD_SHARE}; size after ≤ ${MAX_SIZE_AFTER_SHARE} × before`,
          ...judge(
            [
              check('dead rows ÷ live rows, dispatched', deadShare, `≤ ${MAX_DEAD_SHARE}`, deadShare <= MAX_DEAD_SHARE),
              check('MB before the retention', mb(dispatched.bytes), 'reported', true),
              check('MB after the retention', mb(after.bytes), `≤ ${MAX_SIZE_AFTER_SHARE} × before`, sizeShare <= MAX_SIZE_AFTER_SHARE),
              check('rows left (none is within the window)', left, '= 0', left === 0),
            ],
            { ...NO_LOAD, requests: EVENTS },
          ),
        }),
      ];
    } finally {
      await stopRallyWorker(worker);
      await db.end();
    }
  },
};
