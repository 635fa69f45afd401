// Migration statements run on their own, for tests of what a migration does to rows as they were
// before it: one statement read from the migration's file, run inside a transaction that is always
// rolled back, so the shared test database is left as it was.
import { readFile } from 'node:fs/promises';
import type { DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { MIGRATIONS_DIR } from '../../db/migrate.ts';
import { sql } from '../../db/sql.ts';

/** The statement of `file` (in db/migrations/) that begins with `start`, up to its semicolon. */
export async function migrationStatement(file: string, start: string) {
  const text = await readFile(`${MIGRATIONS_DIR}${file}`, 'utf8');
  const from = text.indexOf(start);
  if (from < 0) throw new Error(`${file} has no statement beginning "${start}"`);
  const statement = text.slice(from, text.indexOf(';', from));
  // A template of one part: the statement's text carries no values.
  return sql.unsafe(Object.assign([statement], { raw: Object.freeze([statement]) }) as unknown as TemplateStringsArray);
}

class RolledBack extends Error {}

/** Runs `work` in a transaction, then rolls it back whatever `work` did; `work`'s failures propagate. */
export async function inRolledBackTransaction(db: DatabasePool, work: (tx: DatabaseTransactionConnection) => Promise<void>): Promise<void> {
  await db
    .transaction(async (tx) => {
      await work(tx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
}
