// The README's configuration table from the schema (platform/config/*.ts):
// `node scripts/run.mjs scripts/config-table.ts` prints it, `--write` puts it into README.md.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configTable, withConfigTable } from '../platform/config/docs.ts';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

if (process.argv.includes('--write')) {
  const before = await readFile(README, 'utf8');
  const after = withConfigTable(before);
  if (after !== before) await writeFile(README, after);
  process.stdout.write(after === before ? 'README.md: configuration table already up to date\n' : 'README.md: configuration table regenerated\n');
} else {
  process.stdout.write(`${configTable()}\n`);
}
