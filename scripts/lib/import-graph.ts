// The repository's import graph, file by file (the TypeScript compiler's own scanner: static, type-only
// and dynamic imports and re-exports all count, since a circle of types ties files as much as one of
// values; relative imports only, test/ and generated files left out), and the floors its arrows point down.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SKIPPED = new Set(['node_modules', 'test', '.git', '.data', 'dist', 'bench-results']);

function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path.relative(root, full)] : [];
  });
}

/** Each file (relative to `root`) and the files it imports. */
export function importGraph(root: string): Map<string, string[]> {
  const files = sourceFiles(root);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
      const targets = importedFiles
        .map(({ fileName }) => fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => path.normalize(path.join(path.dirname(file), name)))
        .filter((target) => known.has(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** Strongly connected components with more than one file: every import circle lies within one. */
export function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  // Tarjan's algorithm; recursion depth is bounded by the longest import chain, a few dozen files.
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

export const topFolder = (file: string) => file.split(path.sep)[0]!;

/**
 * The floors of the house, top first: a file may import its own floor's folders and those below,
 * never one above (the ESLint layer rules in scripts/eslint.config.js spell out the same order).
 */
export const LAYER_ORDER: readonly (readonly string[])[] = [
  // Tools, entry points and the SDK: nothing in the product imports them.
  ['bin', 'scripts', 'clients'],
  // The processes and the pages the API serves: each composes what lies below it.
  ['api', 'site', 'worker', 'identity-provider'],
  ['orchestration'],
  ['workflows'],
  ['activities'],
  ['core'],
  ['db'],
  ['platform'],
];

/** The floor of a file's top-level folder, 0 for the top one; undefined for a folder no floor lists. */
export function layerOf(file: string): number | undefined {
  const floor = LAYER_ORDER.findIndex((folders) => folders.includes(topFolder(file)));
  return floor === -1 ? undefined : floor;
}

/** Every import that points from a lower floor to a higher one, as `from → to`. */
export function arrowsUp(graph: Map<string, string[]>): string[] {
  const up = (file: string, target: string) => {
    const [from, to] = [layerOf(file), layerOf(target)];
    return from !== undefined && to !== undefined && to < from;
  };
  return [...graph].flatMap(([file, targets]) => targets.filter((target) => up(file, target)).map((target) => `${file} → ${target}`));
}
