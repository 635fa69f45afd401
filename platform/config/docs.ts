// The README's configuration table, generated from the schema so the two cannot drift
// (`node scripts/run.mjs scripts/config-table.ts --write`; test/platform/config-table.unit.test.ts).

import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema } from './schema.ts';

export const TABLE_START = '<!-- configuration table: generated from platform/config/*.ts by `node scripts/run.mjs scripts/config-table.ts --write` -->';
export const TABLE_END = '<!-- end of configuration table -->';

function defaultCell(schema: TSchema): string {
  if (typeof schema.defaultText === 'string') return schema.defaultText;
  return schema.default === undefined ? 'unset' : `\`${String(schema.default)}\``;
}

/** One row per variable, in the schema's order. */
export function configTable(): string {
  const rows = Object.entries(ConfigSchema.properties as Record<string, TSchema>).map(
    ([name, schema]) => `| \`${name}\` | ${defaultCell(schema)} | ${String(schema.description)} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `readme` with the text between the table's markers replaced by the generated table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end < start) throw new Error(`README.md has no configuration table markers (${TABLE_START} … ${TABLE_END})`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${configTable()}\n${readme.slice(end)}`;
}

/** The table as the README holds it now, or undefined without markers. */
export function readmeConfigTable(readme: string): string | undefined {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  return start === -1 || end < start ? undefined : readme.slice(start + TABLE_START.length, end).trim();
}
