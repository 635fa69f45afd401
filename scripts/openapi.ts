// `npm run openapi`: writes the OpenAPI document built offline from the route declarations (api/reference/offline-document.ts) to openapi.json, and the
// TypeScript SDK's types generated from it (clients/typescript/src/generated/openapi.ts), so neither can lag the API. `--check` writes nothing and exits 1 when
// either is stale (test/api/openapi-document.test.ts runs the same check).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openApiArtifacts } from './lib/openapi-artifacts.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const artifact of await openApiArtifacts()) {
  const file = ROOT + artifact.path;
  const current = await readFile(file, 'utf8').catch(() => '');
  if (current === artifact.text) continue;
  stale++;
  if (check) process.stdout.write(`${artifact.path} is stale: run npm run openapi\n`);
  else {
    await writeFile(file, artifact.text);
    process.stdout.write(`wrote ${artifact.path}\n`);
  }
}
if (check && stale) process.exit(1);
