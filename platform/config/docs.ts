// The configuration reference (docs/operations/configuration.md) and `.env.example`, both generated
// from the schema so neither can drift from what start-up accepts
// (`node scripts/run.mjs scripts/config-table.ts --write`; test/docs/configuration-reference.unit.test.ts).

import type { TSchema } from '@sinclair/typebox';
import { ConfigSchema } from './schema.ts';

export const TABLE_START = '<!-- configuration table: generated from platform/config/*.ts by `node scripts/run.mjs scripts/config-table.ts --write` -->';
export const TABLE_END = '<!-- end of configuration table -->';

const variables = () => Object.entries(ConfigSchema.properties as Record<string, TSchema>);

function defaultCell(schema: TSchema): string {
  if (typeof schema.defaultText === 'string') return schema.defaultText;
  return schema.default === undefined ? 'unset' : `\`${String(schema.default)}\``;
}

/** One row per variable, in the schema's order. */
export function configTable(): string {
  const rows = variables().map(([name, schema]) => `| \`${name}\` | ${defaultCell(schema)} | ${String(schema.description)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `document` with the text between the table's markers replaced by the generated table. */
export function withConfigTable(document: string): string {
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  if (start === -1 || end < start) throw new Error(`the configuration reference has no table markers (${TABLE_START} … ${TABLE_END})`);
  return `${document.slice(0, start + TABLE_START.length)}\n${configTable()}\n${document.slice(end)}`;
}

/** The table as a document holds it now, or undefined without markers. */
export function documentedConfigTable(document: string): string | undefined {
  const start = document.indexOf(TABLE_START);
  const end = document.indexOf(TABLE_END);
  return start === -1 || end < start ? undefined : document.slice(start + TABLE_START.length, end).trim();
}

/** The variables compose.yaml refuses to start without (`${NAME:?message}`), in order of appearance. */
export function composeRequiredVariables(compose: string): string[] {
  return [...new Set([...compose.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map(([, name]) => name!))];
}

const plain = (markdown: string) => markdown.replace(/\*\*|`/g, '');

/**
 * `.env.example`: the variables compose.yaml requires, uncommented and empty, then every variable of
 * the schema commented out with its default, so copying it to `.env` changes nothing until edited.
 */
export function envExample(compose: string): string {
  const required = composeRequiredVariables(compose);
  const lines = [
    '# Rally settings. Copy to .env (compose.yaml reads it) and fill in the variables under "Required".',
    '# Generated from platform/config/*.ts and compose.yaml by `node scripts/run.mjs scripts/config-table.ts --write`;',
    '# the reference with every rule is docs/operations/configuration.md.',
    '',
    '# Required by compose.yaml (POSTGRES_PASSWORD is the database password of its postgres service).',
    '# Make secrets with `openssl rand -hex 32`.',
    ...required.map((name) => `${name}=`),
  ];
  for (const [name, schema] of variables()) {
    if (required.includes(name)) continue;
    lines.push('', `# ${plain(String(schema.description))}`);
    if (typeof schema.defaultText === 'string') lines.push(`# Default: ${plain(schema.defaultText)}`);
    lines.push(`# ${name}=${schema.default === undefined ? '' : String(schema.default)}`);
  }
  return `${lines.join('\n')}\n`;
}
