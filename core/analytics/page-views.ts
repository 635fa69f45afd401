// Views of petitions (the JSON read and the HTML page are page views; the embed widget's are counted apart), counted in memory and added to
// petition_page_views_hourly in one statement per flush, never one write per view. A view is a statistic, not a record: a crash loses at most one interval of
// views (docs/architecture.md says so), and a failed flush keeps its counts for the next one.
import type { DatabasePool } from 'slonik';
import { sql } from '../../db/sql.ts';
import type { Logger } from '../../platform/logger.ts';

// Bounds memory whatever the traffic: this many distinct petitions triggers an early flush.
const MAX_PENDING_PETITIONS = 10_000;

export type ViewKind = 'page' | 'widget';
type Counts = { page: number; widget: number };

export type PageViewCounter = { record(petitionId: string, kind?: ViewKind): void; flush(): Promise<void>; stop(): Promise<void> };

// Flushes every RALLY_PAGE_VIEW_FLUSH_INTERVAL, when many petitions pile up (MAX_PENDING_PETITIONS), and on
// shutdown.
export function createPageViewCounter({ db, flushIntervalMs, log }: { db: DatabasePool; flushIntervalMs: number; log: Logger }): PageViewCounter {
  let pending = new Map<string, Counts>();
  let flushing: Promise<void> = Promise.resolve();

  const add = (petitionId: string, counts: Counts) => {
    const entry = pending.get(petitionId) ?? { page: 0, widget: 0 };
    entry.page += counts.page;
    entry.widget += counts.widget;
    pending.set(petitionId, entry);
  };

  async function write(batch: Map<string, Counts>) {
    if (batch.size === 0) return;
    const counts = [...batch.values()];
    try {
      await db.query(sql.typeAlias('void')`
        INSERT INTO petition_page_views_hourly AS views (petition_id, hour, views, widget_views)
        SELECT petition_id, date_trunc('hour', now()), page, widget
        FROM unnest(${sql.array([...batch.keys()], 'uuid')}, ${sql.array(
          counts.map((count) => count.page),
          'int8',
        )}, ${sql.array(
          counts.map((count) => count.widget),
          'int8',
        )})
          AS t(petition_id, page, widget)
        ON CONFLICT ON CONSTRAINT petition_page_views_hourly_pkey DO UPDATE SET
          views = views.views + EXCLUDED.views, widget_views = views.widget_views + EXCLUDED.widget_views
      `);
    } catch (error) {
      log.warn('page views not written; kept for the next flush', { petitions: batch.size, error: (error as Error).message });
      for (const [id, count] of batch) add(id, count);
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
    record(petitionId, kind = 'page') {
      add(petitionId, kind === 'page' ? { page: 1, widget: 0 } : { page: 0, widget: 1 });
      if (pending.size >= MAX_PENDING_PETITIONS) void flush();
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
