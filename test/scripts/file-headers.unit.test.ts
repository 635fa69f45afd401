// A file's leading `//` header is at most three lines: what the file is and the most important why. Detail that
// matters beyond that sits beside the code it explains. Same files as line-width: every file Prettier formats.
// A `#!` line is not part of the header; blank `//` lines and `// -` bullets in it count as lines.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import * as prettier from 'prettier';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CODE = /\.(ts|js|mjs)$/;
const NEVER = new Set(['node_modules', '.git', '.data', 'dist']);
const MOST = 3;

async function codeFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return NEVER.has(entry.name) ? [] : codeFiles(full);
      return CODE.test(entry.name) ? [full] : [];
    }),
  );
  return nested.flat();
}

async function formatted(file: string): Promise<boolean> {
  const info = await prettier.getFileInfo(file, { ignorePath: path.join(ROOT, '.prettierignore') });
  return !info.ignored && info.inferredParser !== null;
}

function headerLines(text: string): number {
  const lines = text.split('\n');
  let index = lines[0]?.startsWith('#!') ? 1 : 0;
  let count = 0;
  while (index < lines.length && lines[index]!.startsWith('//')) {
    count++;
    index++;
  }
  return count;
}

describe('file headers (three lines)', () => {
  it('has no leading // header longer than three lines in any file Prettier formats', async () => {
    const files = (await codeFiles(ROOT)).sort();
    const checked = await Promise.all(files.map(async (file) => ((await formatted(file)) ? file : null)));
    const long: string[] = [];
    for (const file of checked) {
      if (!file) continue;
      const count = headerLines(await readFile(file, 'utf8'));
      if (count > MOST) long.push(`${path.relative(ROOT, file)} (${count} lines)`);
    }
    expect(checked.filter(Boolean).length, 'the code files Prettier formats').to.be.above(100);
    expect(long).to.deep.equal([]);
  });
});
