// The import graph points one way between top-level folders (api → orchestration → workflows →
// activities → core → platform/db): no circle of imports, value or type, may cross two of them.
// Circles inside one folder are that folder's own business.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importCircles, importGraph, topFolder } from '../../scripts/lib/import-graph.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const crossing = (graph: Map<string, string[]>) => importCircles(graph).filter((circle) => new Set(circle.map(topFolder)).size > 1);

describe('import graph (scripts/lib/import-graph.ts)', () => {
  it('has no import circle that crosses top-level folders', () => {
    expect(crossing(importGraph(ROOT)).map((circle) => circle.join(' ⇄ '))).to.deep.equal([]);
  });

  it('finds a circle through two folders, type imports included', () => {
    const graph = new Map([
      ['core/a.ts', ['workflows/b.ts']],
      ['workflows/b.ts', ['activities/c.ts']],
      ['activities/c.ts', ['core/a.ts']],
      ['core/d.ts', ['core/e.ts']],
      ['core/e.ts', ['core/d.ts']],
    ]);
    expect(crossing(graph)).to.deep.equal([['activities/c.ts', 'core/a.ts', 'workflows/b.ts']]);
  });

  it('reads type-only imports and re-exports as edges', () => {
    const graph = importGraph(ROOT);
    // workflows/petition-lifecycle.ts imports its activities' types only; workflows/index.ts re-exports it.
    expect(graph.get('workflows/petition-lifecycle.ts')).to.include('activities/petitions.ts');
    expect(graph.get('workflows/index.ts')).to.include('workflows/petition-lifecycle.ts');
  });
});
