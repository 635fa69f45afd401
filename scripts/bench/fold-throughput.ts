// How fast the analytics fold (core/analytics/fold.ts, the same batches the foldSignatureRollups workflow folds) drains the rollup queue on the bench database.
// When the queue holds too little to measure, copies of existing signatures are queued with a delta of 0 first: folding them does all the fold's work (every
// rollup upserted) without changing any figure.
import { createDatabasePool } from '../../db/pool.ts';
import { sql } from '../../db/sql.ts';
import { foldSignatureBatch } from '../../core/analytics/fold.ts';
import { BATCH_SIZE } from '../../workflows/fold-signature-rollups.ts';
import { z } from 'zod';
import { timedResult, type LoadResult } from './load.ts';

const MIN_QUEUED = 100_000;
const LIMIT_MS = 5 * 60_000;

/** Folds the whole queue (at most LIMIT_MS); requestsPerSecond is signatures folded per second, latencies per batch. */
export async function measureFold(databaseUrl: string, petitionId: string, log: (line: string) => void): Promise<LoadResult> {
  const db = await createDatabasePool(databaseUrl, { maximumPoolSize: 1, statementTimeoutMs: 120_000 });
  try {
    const queued = await db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM signature_rollup_queue`);
    if (queued < MIN_QUEUED) {
      await db.query(sql.typeAlias('void')`
        INSERT INTO signature_rollup_queue (petition_id, signed_at, country, city, source, referrer_id, delta)
        SELECT petition_id, created_at, country, city, source, referrer_id, 0 FROM signatures WHERE petition_id = ${petitionId} LIMIT ${MIN_QUEUED - queued}`);
    }
    log(`fold: ${Math.max(queued, MIN_QUEUED).toLocaleString('en-US')} queued signature changes to fold in batches of ${BATCH_SIZE.toLocaleString('en-US')}`);
    const latencies: number[] = [];
    let folded = 0;
    const began = performance.now();
    for (;;) {
      const at = performance.now();
      const count = await foldSignatureBatch(db, BATCH_SIZE);
      latencies.push(performance.now() - at);
      folded += count;
      if (count < BATCH_SIZE || performance.now() - began > LIMIT_MS) break;
    }
    const seconds = (performance.now() - began) / 1000;
    log(`fold: ${folded.toLocaleString('en-US')} in ${seconds.toFixed(1)} s (${Math.round(folded / seconds).toLocaleString('en-US')}/s)`);
    return timedResult(latencies, seconds, { units: folded });
  } finally {
    await db.end();
  }
}
