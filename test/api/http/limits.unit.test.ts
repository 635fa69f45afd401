// Issue 25: one home for the route limits. Every limit a route's rate-limit class charges is made,
// keyed and answered in api/http/limits.ts; a limiter made anywhere else in api/ is a second copy.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const API = fileURLToPath(new URL('../../../api/', import.meta.url));
/** The token bucket itself, and the one module that makes the route limits from it. */
const ALLOWED = new Set(['http/rate-limit.ts', 'http/limits.ts']);

async function sourcesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('route limits (api/http/limits.ts)', () => {
  it('are all made in api/http/limits.ts: no other file under api/ creates a rate limiter', async () => {
    const makers: string[] = [];
    for (const file of await sourcesUnder(API)) {
      const relative = path.relative(API, file).split(path.sep).join('/');
      if (!ALLOWED.has(relative) && (await readFile(file, 'utf8')).includes('createRateLimiter(')) makers.push(relative);
    }
    expect(makers).to.deep.equal([]);
  });
});
