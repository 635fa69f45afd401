// A file's leading `//` header is at most three lines: what the file is and the most important why. Detail that
// matters beyond that sits beside the code it explains. Same files as line-width: every file Prettier formats.
// A `#!` line is not part of the header; blank `//` lines and `// -` bullets in it count as lines.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { formattedCodeFiles, ROOT } from '../support/formatted-code.ts';

const MOST = 3;

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
    const files = await formattedCodeFiles();
    const long: string[] = [];
    for (const file of files) {
      const count = headerLines(await readFile(file, 'utf8'));
      if (count > MOST) long.push(`${path.relative(ROOT, file)} (${count} lines)`);
    }
    expect(files.length, 'the code files Prettier formats').to.be.above(100);
    expect(long).to.deep.equal([]);
  });
});
