// Every search answer is bounded: its queries run in one read-only transaction whose statement
// timeout is RALLY_SEARCH_TIMEOUT. When the timeout trips, or the database cannot be reached, the
// caller gets a retryable `search_unavailable` error (the API's 503 search-unavailable), never a 500.
import { BackendTerminatedError, ConnectionError, StatementCancelledError, StatementTimeoutError, type DatabasePool, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { Unavailable } from '../errors/domain-error.ts';

export const SEARCH_UNAVAILABLE = 'search_unavailable';
const RETRY_AFTER_SECONDS = 5;

export type SearchDependencies = { db: DatabasePool; timeoutMs: number };

function isUnavailable(error: unknown): boolean {
  return error instanceof StatementTimeoutError || error instanceof StatementCancelledError || error instanceof ConnectionError || error instanceof BackendTerminatedError;
}

export async function boundedSearch<T>(deps: SearchDependencies, run: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction(async (tx) => {
      await tx.query(sql.typeAlias('void')`SET TRANSACTION READ ONLY`);
      // SET LOCAL takes no parameters; set_config(…, true) is its parameterised form.
      await tx.query(sql.type(z.object({ set_config: z.string() }))`SELECT set_config('statement_timeout', ${`${Math.max(1, Math.round(deps.timeoutMs))}ms`}, true)`);
      return run(tx);
    });
  } catch (error) {
    if (isUnavailable(error)) {
      throw new Unavailable('Search is unavailable right now: it took too long or its index cannot be reached. Try again shortly.', {
        code: SEARCH_UNAVAILABLE, retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error,
      });
    }
    throw error;
  }
}
