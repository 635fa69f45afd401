// `npm run test:unit`: the fast tier, in seconds. Runs test/**/*.unit.test.ts: tests of core/ policies and presenters and of the HTTP layer's pure parts, which
// need no PostgreSQL, Temporal, identity provider or HTTP server (so no root hooks start them). `npm test` runs these files too, with everything else.
// Arguments pass on to mocha (`npm run test:unit -- --grep scopes`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const result = spawnSync(
  process.execPath,
  [`${ROOT}node_modules/.bin/mocha`, '--extension', 'ts', '--timeout', '10000', ...process.argv.slice(2), 'test/**/*.unit.test.ts'],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
