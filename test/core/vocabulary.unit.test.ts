// Petition statuses are written once, in core/vocabulary.ts: a second literal list of them (an array,
// a z.enum, a union type or an SQL `IN (…)` naming two or more) is a copy that will drift when a
// status is added.
import { expect } from 'chai';
import { readSource, sourceFiles } from '../support/source-scan.ts';

// The statuses of the spec's petition lifecycle, written here by hand (not imported).
const STATUSES = new Set(['draft', 'active', 'closed', 'victory', 'under_review']);
const STRING = `'[^'\\n]*'`;
const ARRAY = new RegExp(`[[(]\\s*${STRING}(?:\\s*,\\s*${STRING})+\\s*,?\\s*[\\])]`, 'g');
const UNION = new RegExp(`${STRING}(?:\\s*\\|\\s*${STRING})+`, 'g');

function statusLists(file: string): string[] {
  const source = readSource(file);
  return [...source.matchAll(ARRAY), ...source.matchAll(UNION)]
    .map(([list]) => list)
    .filter((list) => new Set([...list.matchAll(/'([^']*)'/g)].map(([, word]) => word).filter((word) => STATUSES.has(word!))).size >= 2);
}

describe('petition statuses (core/vocabulary.ts)', () => {
  it('are listed nowhere else in the application code', () => {
    const copies = sourceFiles('core', 'api', 'workflows', 'activities', 'worker', 'platform')
      .filter((file) => file !== 'core/vocabulary.ts')
      .flatMap((file) => statusLists(file).map((list) => `${file}: ${list.replace(/\s+/g, ' ')}`));
    expect(copies).to.deep.equal([]);
  });

  it('finds the list in core/vocabulary.ts itself (a scanner that finds nothing proves nothing)', () => {
    expect(statusLists('core/vocabulary.ts')).to.have.length.greaterThan(0);
  });
});
