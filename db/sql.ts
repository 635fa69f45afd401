// The project's sql tag: Slonik's, plus a `void` alias for statements that return no rows (so every
// query still names what it expects back), and the helpers every statement shares.
import { createSqlTag, type FragmentSqlToken, type QuerySqlToken } from 'slonik';
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

type ArrayMember = Parameters<typeof sql.array>[0][number];

/** One column of unnestRows: its SQL type, and the value a row gives it (`index`: the row's place in the list). */
export type UnnestColumn<Row> = readonly [type: string, value: (row: Row, index: number) => ArrayMember];

/**
 * `unnest($1::type[], …) AS alias(column, …)`: many rows sent as one array parameter per column, so the
 * statement's text and parameter count stay the same whatever the number of rows. One pass over the
 * rows fills every column's array (the signing statement builds its batch with it, on the hot path).
 * With `ordinality`, the rows' places (from 1) come last, in a column of that name (WITH ORDINALITY).
 */
export function unnestRows<Row>(rows: readonly Row[], alias: string, columns: Record<string, UnnestColumn<Row>>, ordinality?: string): FragmentSqlToken {
  const specs = Object.values(columns);
  const arrays = specs.map(() => new Array<ArrayMember>(rows.length));
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index]!;
    for (let column = 0; column < specs.length; column += 1) arrays[column]![index] = specs[column]![1](row, index);
  }
  const unnested = sql.join(
    specs.map(([type], column) => sql.array(arrays[column]!, type)),
    sql.fragment`, `,
  );
  const names = sql.join(
    [...Object.keys(columns), ...(ordinality === undefined ? [] : [ordinality])].map((name) => sql.identifier([name])),
    sql.fragment`, `,
  );
  return sql.fragment`unnest(${unnested}) ${ordinality === undefined ? sql.fragment`` : sql.fragment`WITH ORDINALITY `}AS ${sql.identifier([alias])}(${names})`;
}
