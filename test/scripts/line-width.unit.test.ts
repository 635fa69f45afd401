// No line of code is wider than Prettier's printWidth. Prettier breaks what it can, but never a
// string, a template literal (SQL, HTML, CSS) or a comment: those are split by hand, and this test
// names each line left over. It reads the same .prettierrc.json and .prettierignore as `prettier --check`.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import * as prettier from 'prettier';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CODE = /\.(ts|js|mjs)$/;
const NEVER = new Set(['node_modules', '.git', '.data', 'dist']);

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

describe('line width (.prettierrc.json)', () => {
  it('has no line of code wider than printWidth in any file Prettier formats', async () => {
    const width = (await prettier.resolveConfig(path.join(ROOT, 'package.json')))?.printWidth;
    expect(width, 'printWidth is set in .prettierrc.json').to.be.a('number');
    const files = (await codeFiles(ROOT)).sort();
    const checked = await Promise.all(files.map(async (file) => ((await formatted(file)) ? file : null)));
    const wide: string[] = [];
    for (const file of checked) {
      if (!file) continue;
      (await readFile(file, 'utf8')).split('\n').forEach((line, index) => {
        if (line.length > width!) wide.push(`${path.relative(ROOT, file)}:${index + 1} (${line.length})`);
      });
    }
    expect(checked.filter(Boolean).length, 'the code files Prettier formats').to.be.above(100);
    expect(wide).to.deep.equal([]);
  });
});
