// The one way to get a database pool. The result-parser interceptor checks every row of a
// `sql.type(schema)` query against its schema: without it Slonik would trust the database blindly.
// Statements named with `prepared` (db/sql.ts), the hot path's, are trusted where the pool says so.
import { createPool, createNumericTypeParser, SchemaValidationError, type DatabasePool, type Interceptor, type QueryResultRow } from 'slonik';
import { sql } from './sql.ts';
import { observeLabelledGauge } from '../platform/metrics.ts';

/**
 * Rejects rows that do not match the schema given to `sql.type(...)`; with `checkPrepared: false`, not
 * the rows of statements named with `prepared`, whose types stay compile-time only. Synchronous
 * (transformRow): Slonik runs an asynchronous row transform through a queue of its own per query
 * (p-queue), and every schema here parses synchronously.
 */
export function createResultParserInterceptor(options: { checkPrepared?: boolean } = {}): Interceptor {
  const checkPrepared = options.checkPrepared ?? true;
  return {
    name: 'rally-result-parser',
    transformRow: (queryContext, query, row) => {
      const { resultParser } = queryContext;
      if (!resultParser || (!checkPrepared && queryContext.originalQuery.name !== undefined)) return row;
      const result = resultParser['~standard'].validate(row);
      if (result instanceof Promise) throw new TypeError('row schemas must parse synchronously (no async refinements)');
      if (result.issues) throw new SchemaValidationError(query, row, result.issues);
      return result.value as QueryResultRow;
    },
  };
}

// Timestamps travel as ISO 8601 strings end to end (the API's wire format), not epoch numbers, and
// keep PostgreSQL's microseconds: keyset cursors built from them must compare exactly with the rows.
// `2026-11-25 23:54:03.285123+00` → `2026-11-25T23:54:03.285123Z` (`+05:30` offsets are kept).
export function timestampAsIsoString(value: string | null): string | null {
  if (value === null) return null;
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?:([+-]\d{2})(?::?(\d{2}))?)?$/.exec(value);
  if (!match) return new Date(value).toISOString();
  const [, date, time, hours, minutes] = match;
  const offset = hours === undefined ? 'Z' : hours === '+00' && (minutes ?? '00') === '00' ? 'Z' : `${hours}:${minutes ?? '00'}`;
  return `${date}T${time}${offset}`;
}

export type DatabasePoolOptions = {
  maximumPoolSize?: number;
  statementTimeoutMs?: number;
  /** Whether statements named with `prepared` (db/sql.ts) are prepared by name; unset, they go unnamed. */
  preparedStatements?: boolean;
  /** Whether the rows of statements named with `prepared` are checked against their schema; default true. */
  checkPreparedRows?: boolean;
};

/** Sends every statement unnamed: for a pool behind a PgBouncer that cannot carry prepared statements. */
function createUnnamedStatementsInterceptor(): Interceptor {
  return { name: 'rally-unnamed-statements', transformQuery: (_context, query) => ({ sql: query.sql, values: query.values }) };
}

// Every pool of this process, with its size, summed into rally_db_pool_connections at each scrape.
const livePools = new Map<DatabasePool, number>();
observeLabelledGauge('rally_db_pool_connections', () => {
  const total = { in_use: 0, idle: 0, waiting: 0, max: 0 };
  for (const [pool, size] of livePools) {
    const state = pool.state();
    if (state.state === 'ENDED') {
      livePools.delete(pool);
      continue;
    }
    total.in_use += state.acquiredConnections;
    total.idle += state.idleConnections;
    total.waiting += state.waitingClients;
    total.max += size;
  }
  return total;
});

export async function createDatabasePool(databaseUrl: string, options: DatabasePoolOptions = {}): Promise<DatabasePool> {
  const pool = await createPoolWithRallyDefaults(databaseUrl, options);
  livePools.set(pool, options.maximumPoolSize ?? 10);
  return pool;
}

function createPoolWithRallyDefaults(databaseUrl: string, options: DatabasePoolOptions): Promise<DatabasePool> {
  return createPool(databaseUrl, {
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: options.statementTimeoutMs ?? 30_000,
    connectionTimeout: 5_000,
    interceptors: [
      ...(options.preparedStatements ? [] : [createUnnamedStatementsInterceptor()]),
      createResultParserInterceptor({ checkPrepared: options.checkPreparedRows ?? true }),
    ],
    // Rally never changes session state (no SET, no temporary tables, no LISTEN on pooled
    // connections), so the default DISCARD ALL after every query would be a wasted round trip.
    resetConnection: async () => {},
    typeParsers: [
      // Counts and identities are bigint in SQL but stay far below 2^53: plain numbers in JSON.
      { name: 'int8', parse: (value: string) => Number(value) },
      createNumericTypeParser(),
      { name: 'timestamptz', parse: timestampAsIsoString },
      { name: 'timestamp', parse: timestampAsIsoString },
      { name: 'date', parse: (value: string) => value },
    ],
  });
}

export type { DatabasePool };

/** Resolves when the database answers a trivial query (the health probe's check). */
export async function pingDatabase(db: DatabasePool): Promise<void> {
  await db.query(sql.typeAlias('void')`SELECT`);
}
