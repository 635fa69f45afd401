// A request's transaction held open on purpose: what it recorded (and the commit barrier it holds) exists but is not
// committed while `during` runs, then it commits or rolls back. For the reads that must wait for that commit.
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from './environment.ts';
import { eventually } from './events.ts';

class RolledBack extends Error {}

/** `during` runs outside the transaction's own context (Slonik refuses pool queries inside it), while the transaction waits. */
export async function whileUncommitted<T>(
  record: (tx: CommonQueryMethods) => Promise<T>,
  during: (recorded: T) => Promise<void>,
  end: 'commit' | 'rollback',
): Promise<T> {
  const recorded = Promise.withResolvers<T>();
  const release = Promise.withResolvers<void>();
  const transaction = testEnvironment()
    .db.transaction(async (tx) => {
      recorded.resolve(await record(tx));
      await release.promise;
      if (end === 'rollback') throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  const value = await Promise.race([recorded.promise, transaction.then(() => Promise.reject(new Error('the transaction ended before recording')))]);
  try {
    await during(value);
  } finally {
    release.resolve();
    await transaction;
  }
  return value;
}

/** Resolves once some session of this database waits on an advisory lock (a commit barrier), or `settled()` says the reader answered. */
export function waitingOnBarrier(settled: () => boolean): Promise<true> {
  return eventually(
    async () => {
      const waiting = await testEnvironment().db.exists(sql.type(z.object({}))`
        SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`);
      return waiting || settled() || undefined;
    },
    10_000,
    'a reader waiting on the commit barrier',
  );
}
