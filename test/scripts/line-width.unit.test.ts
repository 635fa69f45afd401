// No line of code is wider than Prettier's printWidth. Prettier breaks what it can, but never a
// string, a template literal (SQL, HTML, CSS) or a comment: those are split by hand, and this test
// names each line left over. It reads the same .prettierrc.json and .prettierignore as `prettier --check`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import * as prettier from 'prettier';
import { formattedCodeFiles, ROOT } from '../support/formatted-code.ts';

describe('line width (.prettierrc.json)', () => {
  it('has no line of code wider than printWidth in any file Prettier formats', async () => {
    const width = (await prettier.resolveConfig(path.join(ROOT, 'package.json')))?.printWidth;
    expect(width, 'printWidth is set in .prettierrc.json').to.be.a('number');
    const files = await formattedCodeFiles();
    const wide: string[] = [];
    for (const file of files) {
      (await readFile(file, 'utf8')).split('\n').forEach((line, index) => {
        if (line.length > width!) wide.push(`${path.relative(ROOT, file)}:${index + 1} (${line.length})`);
      });
    }
    expect(files.length, 'the code files Prettier formats').to.be.above(100);
    expect(wide).to.deep.equal([]);
  });
});
