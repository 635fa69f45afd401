// Page views of petitions, counted in memory and added to petition_page_views_hourly in one
// statement per flush (every RALLY_PAGE_VIEW_FLUSH_INTERVAL, when many petitions pile up, and on
// shutdown), never one write per view. A view is a statistic, not a record: a process that
// crashes loses at most one interval of its views, which the README states. A failed flush keeps
// its counts for the next one.
import type { DatabasePool } from 'slonik';
import { sql } from '../../db/sql.ts';
import type { Logger } from '../../platform/logger.ts';

// Bounds memory whatever the traffic: this many distinct petitions triggers an early flush.
const MAX_PENDING_PETITIONS = 10_000;

export type PageViewCounter = { record(petitionId: string): void; flush(): Promise<void>; stop(): Promise<void> };

export function createPageViewCounter({ db, flushIntervalMs, log }: { db: DatabasePool; flushIntervalMs: number; log: Logger }): PageViewCounter {
  let pending = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(batch: Map<string, number>) {
    if (batch.size === 0) return;
    try {
      await db.query(sql.typeAlias('void')`
        INSERT INTO petition_page_views_hourly AS views (petition_id, hour, views)
        SELECT petition_id, date_trunc('hour', now()), count
        FROM unnest(${sql.array([...batch.keys()], 'uuid')}, ${sql.array([...batch.values()], 'int8')}) AS t(petition_id, count)
        ON CONFLICT ON CONSTRAINT petition_page_views_hourly_pkey DO UPDATE SET views = views.views + EXCLUDED.views
      `);
    } catch (error) {
      log.warn('page views not written; kept for the next flush', { petitions: batch.size, error: (error as Error).message });
      for (const [id, count] of batch) pending.set(id, (pending.get(id) ?? 0) + count);
    }
  }

  function flush(): Promise<void> {
    const batch = pending;
    pending = new Map();
    flushing = flushing.then(() => write(batch));
    return flushing;
  }

  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref();

  return {
    record(petitionId) {
      pending.set(petitionId, (pending.get(petitionId) ?? 0) + 1);
      if (pending.size >= MAX_PENDING_PETITIONS) void flush();
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
