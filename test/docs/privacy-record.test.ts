// docs/operations/privacy.md is the record of processing (issue 46): each table holding personal data has a section naming every one of its columns. The tables
// come from the document; their columns from the migrated test database. A migration that adds a column to such a table, or a new table named in neither of the
// document's lists, fails here until the document says what it holds.
import { expect } from 'chai';
import { z } from 'zod';
import { sql } from '../../db/sql.ts';
import { testEnvironment } from '../support/environment.ts';
import { readDocument } from '../support/markdown.ts';

const DOCUMENT = 'docs/operations/privacy.md';
const Column = z.object({ table_name: z.string(), column_name: z.string() });

/** Each `### \`table\`` section and the columns its rows name (`| \`column\` | …`). */
export function documentedTables(markdown: string): Map<string, Set<string>> {
  const tables = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^### `([a-z_0-9]+)`\s*$/.exec(line);
    if (heading) tables.set(heading[1]!, (current = new Set()));
    else if (/^#{1,3} /.test(line)) current = undefined;
    const row = /^\|\s*`([a-z_0-9]+)`\s*\|/.exec(line);
    if (row && current) current.add(row[1]!);
  }
  return tables;
}

async function databaseColumns(): Promise<Map<string, string[]>> {
  const rows = await testEnvironment().db.any(sql.type(Column)`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN pg_class t ON t.relname = c.table_name AND t.relnamespace = 'public'::regnamespace
    WHERE c.table_schema = 'public' AND t.relkind IN ('r', 'p') AND NOT t.relispartition
    ORDER BY c.table_name, c.ordinal_position
  `);
  const tables = new Map<string, string[]>();
  for (const row of rows) tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
  return tables;
}

describe('docs/operations/privacy.md, the record of processing', () => {
  it('names every column of every table it lists as holding personal data, and only real columns', async () => {
    const documented = documentedTables(await readDocument(DOCUMENT));
    expect(documented.size).to.be.greaterThan(20);
    const database = await databaseColumns();
    const missing: string[] = [];
    const unknown: string[] = [];
    for (const [table, columns] of documented) {
      const actual = database.get(table);
      if (!actual) {
        unknown.push(table);
        continue;
      }
      for (const column of actual) if (!columns.has(column)) missing.push(`${table}.${column}`);
      for (const column of columns) if (!actual.includes(column)) unknown.push(`${table}.${column}`);
    }
    expect(missing, 'columns the document does not name').to.deep.equal([]);
    expect(unknown, 'tables or columns the document names that do not exist').to.deep.equal([]);
  });

  it('puts every table of the database in one of its two lists', async () => {
    const markdown = await readDocument(DOCUMENT);
    const documented = documentedTables(markdown);
    const withoutPersonalData = markdown.split('## Tables without personal data')[1] ?? '';
    const unlisted = [...(await databaseColumns()).keys()].filter((table) => !documented.has(table) && !withoutPersonalData.includes(`\`${table}\``));
    expect(unlisted, 'tables in neither list').to.deep.equal([]);
  });

  it('fails for a column added to a personal-data table without the document naming it', () => {
    // The rule itself, on a document that leaves one column out.
    const documented = documentedTables('### `users`\n\n| Column | Personal data | On account deletion |\n|---|---|---|\n| `id` | id | deleted |\n');
    const actual = ['id', 'email'];
    expect(actual.filter((column) => !documented.get('users')!.has(column))).to.deep.equal(['email']);
  });
});
