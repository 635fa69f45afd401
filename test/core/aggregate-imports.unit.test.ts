// No two aggregates of core/ import each other: a pair that does is one aggregate in two folders, and neither can be understood, tested or changed alone.
// Type-only imports count too: they couple the code as much, if not the running program.
import { expect } from 'chai';
import { readSource, sourceFiles } from '../support/source-scan.ts';

// The petition kernel (core/petitions: policy, visibility, queries, presenter, transitions) is what the others
// build on, so it imports none of them; what composes a petition with other aggregates lives above them
// (core/public-petition.ts).
// Pairs left as they are, each with the reason. Remove an entry once the pair is broken.
const ALLOWED_PAIRS: Record<string, string> = {};

const IMPORT = /(?:import|export)\s+(?:type\s+)?[^;]*?\sfrom\s+'\.\.\/([a-z-]+)\/[^']+'/g;

/** Every `aggregate <-> aggregate` pair (sorted names) whose folders import each other, with one file each way. */
function mutualPairs(): Map<string, string> {
  const edges = new Map<string, string>();
  for (const file of sourceFiles('core')) {
    const [, aggregate, rest] = file.split('/');
    // core/*.ts: words (vocabulary, slugs, workflow summaries) and shared reads (organization lookups,
    // the public petition and user), not aggregates.
    if (!rest) continue;
    for (const [, target] of readSource(file).matchAll(IMPORT)) {
      if (target !== aggregate && !edges.has(`${aggregate}->${target}`)) edges.set(`${aggregate}->${target}`, file);
    }
  }
  const pairs = new Map<string, string>();
  for (const [edge, file] of edges) {
    const [from, to] = edge.split('->') as [string, string];
    const back = edges.get(`${to}->${from}`);
    if (back && from < to) pairs.set(`${from} <-> ${to}`, `${file} and ${back}`);
  }
  return pairs;
}

describe('core aggregates (imports between core/<aggregate>/ folders)', () => {
  it('has no two aggregates that import each other, apart from the commented allow-list', () => {
    const found = [...mutualPairs()].filter(([pair]) => !(pair in ALLOWED_PAIRS)).map(([pair, files]) => `${pair}: ${files}`);
    expect(found).to.deep.equal([]);
  });

  it('keeps no allow-listed pair that no longer imports both ways', () => {
    const pairs = mutualPairs();
    expect(Object.keys(ALLOWED_PAIRS).filter((pair) => !pairs.has(pair))).to.deep.equal([]);
  });
});
