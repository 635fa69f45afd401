// The one way to get a database pool. The result-parser interceptor checks every row of a
// `sql.type(schema)` query against its schema: without it Slonik would trust the database blindly.
import {
  createPool,
  createNumericTypeParser,
  SchemaValidationError,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
} from 'slonik';

/** Rejects rows that do not match the schema given to `sql.type(...)`. */
export function createResultParserInterceptor(): Interceptor {
  return {
    name: 'rally-result-parser',
    transformRowAsync: async (queryContext, query, row) => {
      const { resultParser } = queryContext;
      if (!resultParser) return row;
      const result = await resultParser['~standard'].validate(row);
      if (result.issues) throw new SchemaValidationError(query, row, result.issues);
      return result.value as QueryResultRow;
    },
  };
}

// Timestamps travel as ISO 8601 strings end to end (the API's wire format), not epoch numbers.
const timestampAsIsoString = (value: string | null) => (value === null ? null : new Date(value).toISOString());

export type DatabasePoolOptions = {
  maximumPoolSize?: number;
  statementTimeoutMs?: number;
};

export async function createDatabasePool(databaseUrl: string, options: DatabasePoolOptions = {}): Promise<DatabasePool> {
  return createPool(databaseUrl, {
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: options.statementTimeoutMs ?? 30_000,
    connectionTimeout: 5_000,
    interceptors: [createResultParserInterceptor()],
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
