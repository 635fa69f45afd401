// The configuration reference from the schema (platform/config/*.ts): `node scripts/run.mjs
// scripts/config-table.ts` prints the table, `--write` puts it into docs/operations/configuration.md
// and regenerates .env.example (which also lists the variables compose.yaml requires).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configTable, envExample, withConfigTable } from '../platform/config/docs.ts';

const path = (relative: string) => fileURLToPath(new URL(`../${relative}`, import.meta.url));
const REFERENCE = 'docs/operations/configuration.md';
const ENV_EXAMPLE = '.env.example';

async function update(relative: string, make: (before: string) => string | Promise<string>): Promise<void> {
  const before = await readFile(path(relative), 'utf8').catch(() => '');
  const after = await make(before);
  if (after !== before) await writeFile(path(relative), after);
  process.stdout.write(`${relative}: ${after === before ? 'already up to date' : 'regenerated'}\n`);
}

if (process.argv.includes('--write')) {
  await update(REFERENCE, withConfigTable);
  await update(ENV_EXAMPLE, async () => envExample(await readFile(path('compose.yaml'), 'utf8')));
} else {
  process.stdout.write(`${configTable()}\n`);
}
