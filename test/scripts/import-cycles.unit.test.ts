// The import graph has no circle, not even inside one folder, and every arrow between top-level
// folders points down the floors (tools → processes → orchestration → workflows → activities → core
// → db → platform): a newcomer can read any file knowing that what it imports never imports it back.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { arrowsUp, importCircles, importGraph, layerOf, topFolder } from '../../scripts/lib/import-graph.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('import graph (scripts/lib/import-graph.ts)', () => {
  let graph: Map<string, string[]>;
  before(() => {
    graph = importGraph(ROOT);
  });

  it('has no import circle, across folders or inside one', () => {
    expect(importCircles(graph).map((circle) => circle.join(' ⇄ '))).to.deep.equal([]);
  });

  it('has no import pointing up the floors', () => {
    expect(arrowsUp(graph)).to.deep.equal([]);
  });

  it('puts every top-level folder with code on a floor', () => {
    const folders = new Set([...graph.keys()].map(topFolder));
    expect([...folders].filter((folder) => layerOf(`${folder}/x.ts`) === undefined)).to.deep.equal([]);
    // A .ts file at the root would belong to no folder, hence no floor.
    expect(readdirSync(ROOT).filter((name) => name.endsWith('.ts'))).to.deep.equal([]);
  });

  it('finds circles through two folders and inside one, type imports included', () => {
    const synthetic = new Map([
      ['core/a.ts', ['workflows/b.ts']],
      ['workflows/b.ts', ['activities/c.ts']],
      ['activities/c.ts', ['core/a.ts']],
      ['core/d.ts', ['core/e.ts']],
      ['core/e.ts', ['core/d.ts']],
      ['core/f.ts', ['core/d.ts']],
    ]);
    expect(importCircles(synthetic)).to.have.deep.members([
      ['activities/c.ts', 'core/a.ts', 'workflows/b.ts'],
      ['core/d.ts', 'core/e.ts'],
    ]);
  });

  it('finds an arrow up the floors, and lets arrows down and along a floor pass', () => {
    const synthetic = new Map([
      ['activities/a.ts', ['orchestration/b.ts', 'core/c.ts']],
      ['api/d.ts', ['orchestration/b.ts', 'worker/e.ts']],
      ['core/c.ts', ['platform/f.ts', 'api/d.ts']],
      ['db/g.ts', ['platform/f.ts']],
      ['platform/f.ts', ['db/g.ts']],
    ]);
    expect(arrowsUp(synthetic)).to.deep.equal(['activities/a.ts → orchestration/b.ts', 'core/c.ts → api/d.ts', 'platform/f.ts → db/g.ts']);
  });

  it('reads type-only imports and re-exports as edges', () => {
    // workflows/petition-lifecycle.ts imports its activities' types only; workflows/index.ts re-exports it.
    expect(graph.get('workflows/petition-lifecycle.ts')).to.include('activities/petitions.ts');
    expect(graph.get('workflows/index.ts')).to.include('workflows/petition-lifecycle.ts');
  });
});
