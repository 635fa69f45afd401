// The project's sql tag: Slonik's, plus a `void` alias for statements that return no rows, so every
// query still names what it expects back.
import { createSqlTag, type QuerySqlToken } from 'slonik';
import { z } from 'zod';

export const sql = createSqlTag({
  typeAliases: {
    void: z.object({}).strict(),
  },
});

/**
 * The statement under a name, so that PostgreSQL keeps its plan on each connection instead of
 * planning it at every call: for the few hot statements whose planning costs as much as their rows
 * (the signing statement plans in about a millisecond, a batch of eight runs in about two). Each
 * name must always carry the same text. Whether names reach PostgreSQL is the pool's choice
 * (`preparedStatements` in db/pool.ts: PgBouncer before 1.21 cannot carry them).
 */
export const prepared = <Query extends QuerySqlToken>(name: `rally_${string}`, query: Query): Query => ({ ...query, name });
