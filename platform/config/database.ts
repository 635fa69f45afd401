// PostgreSQL and the folder for local state.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { flag, integer, text, url } from './variables.ts';

export const databaseVariables = {
  DATABASE_URL: Type.Optional(
    url('postgres-url', {
      defaultText: 'embedded PostgreSQL under `$RALLY_DATA_DIR/postgres` (only `npm start` provides this)',
      description:
        'PostgreSQL connection string (`postgres:` or `postgresql:`). `npm start` creates the database if it ' +
        'is missing. `npm run api`, `worker` and `migrate` require this variable.',
    }),
  ),
  DATABASE_LISTEN_URL: Type.Optional(
    url('postgres-url', {
      defaultText: '`DATABASE_URL`',
      description:
        'a direct PostgreSQL connection string for the one `LISTEN` connection of each API, worker and identity provider process, for ' +
        'when `DATABASE_URL` goes through PgBouncer in transaction mode (`npm run cluster` sets both)',
    }),
  ),
  RALLY_DB_POOL_SIZE: Type.Optional(
    integer(1_000, {
      defaultText: '`20` for the API, `10` for the worker and the identity provider',
      description: "connections one process's PostgreSQL pool may open",
    }),
  ),
  RALLY_DB_PREPARED_STATEMENTS: flag({
    default: true,
    description:
      "`false` keeps the API's hot statements (signing, guest confirmations) unnamed, so that PostgreSQL plans them at " +
      'every call: needed when `DATABASE_URL` goes through PgBouncer older than 1.21 in transaction mode, which cannot ' +
      'carry named prepared statements (`npm run cluster` and `compose.yaml` set it)',
  }),
  RALLY_DATA_DIR: text({
    default: '.data',
    description:
      'base folder for the embedded PostgreSQL (`postgres/`, `postgres.password`), and the default parent ' +
      "of `RALLY_MEDIA_DIR` and `RALLY_MAIL_DIR`. The Temporal dev server's file is set in " +
      '`temporal.yaml`.',
  }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof databaseVariables>>>;

export function databaseSettings(values: Values) {
  return {
    databaseUrl: values.DATABASE_URL,
    databaseListenUrl: values.DATABASE_LISTEN_URL,
    databasePoolSize: values.RALLY_DB_POOL_SIZE,
    databasePreparedStatements: values.RALLY_DB_PREPARED_STATEMENTS,
    dataDir: values.RALLY_DATA_DIR,
  } satisfies Partial<Config>;
}
