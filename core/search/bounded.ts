// Every search answer is bounded: its queries run in one read-only transaction whose statement
// timeout is RALLY_SEARCH_TIMEOUT. When the timeout trips, or the database cannot be reached, the
// caller gets a retryable `search_unavailable` error (the API's 503 search-unavailable), never a 500.
import {
  BackendTerminatedError,
  ConnectionError,
  StatementCancelledError,
  StatementTimeoutError,
  type DatabasePool,
  type DatabaseTransactionConnection,
} from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Unavailable } from '../errors/domain-error.ts';

export const SEARCH_UNAVAILABLE = 'search_unavailable';
const RETRY_AFTER_SECONDS = 5;
// A search groups its matches (facet counts) from a CTE, which has no statistics: the planner then
// expects as many groups as matches and, under the default 4MB, sorts them on disk instead of
// hashing the few hundred groups there are (petition-search.ts). 16MB keeps the match set of the
// whole catalogue (no q) and its grouping in memory.
const SEARCH_WORK_MEM = '16MB';

export type SearchDependencies = { db: DatabasePool; timeoutMs: number };

function isUnavailable(error: unknown): boolean {
  return (
    error instanceof StatementTimeoutError ||
    error instanceof StatementCancelledError ||
    error instanceof ConnectionError ||
    error instanceof BackendTerminatedError
  );
}

export async function boundedSearch<T>(deps: SearchDependencies, run: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction(async (tx) => {
      // SET LOCAL takes no parameters; set_config(…, true) is its parameterised form, and one
      // statement sets all three (transaction_read_only is SET TRANSACTION READ ONLY).
      await tx.query(sql.type(z.object({ read_only: z.string(), statement_timeout: z.string(), work_mem: z.string() }))`
        SELECT set_config('transaction_read_only', 'on', true) AS read_only,
          set_config('statement_timeout', ${`${Math.max(1, Math.round(deps.timeoutMs))}ms`}, true) AS statement_timeout,
          set_config('work_mem', ${SEARCH_WORK_MEM}, true) AS work_mem`);
      return run(tx);
    });
  } catch (error) {
    if (isUnavailable(error)) {
      throw new Unavailable('Search is unavailable right now: it took too long or its index cannot be reached. Try again shortly.', {
        code: SEARCH_UNAVAILABLE,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
        cause: error,
      });
    }
    throw error;
  }
}
