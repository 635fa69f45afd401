// The repository's import graph, file by file, read with the TypeScript compiler's own import
// scanner: static, type-only and dynamic imports and re-exports all count, since a circle of types
// ties folders together as much as one of values. Only relative imports are followed (packages are
// leaves); node_modules, test/ and generated files stay outside.
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
