// Reads the repository's own TypeScript for the tests that guard one home per rule (the SQL that reads
// petitions, literal status lists, imports between aggregates). Plain text scanning, no compiler:
// enough for this code base's style, where SQL is always written in Slonik `sql` templates.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every .ts file under the given top-level folders, as paths relative to the repository root. */
export function sourceFiles(...folders: string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(relative(ROOT, path));
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  return found.sort();
}

export const readSource = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

export type SqlTemplate = { file: string; line: number; text: string };

/** The end (index after the closing backtick) of the template literal opened at `start`. */
function templateEnd(source: string, start: number): number {
  let i = start + 1;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') i += 2;
    else if (c === '`') return i + 1;
    else if (c === '$' && source[i + 1] === '{') i = expressionEnd(source, i + 2);
    else i += 1;
  }
  return i;
}

/** The index after the `}` closing an interpolation whose expression starts at `start`. */
function expressionEnd(source: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < source.length && depth > 0) {
    const c = source[i];
    if (c === '`') i = templateEnd(source, i);
    else if (c === "'" || c === '"') {
      i += 1;
      while (i < source.length && source[i] !== c) i += source[i] === '\\' ? 2 : 1;
      i += 1;
    } else {
      if (c === '{') depth += 1;
      if (c === '}') depth -= 1;
      i += 1;
    }
  }
  return i;
}

/** Every Slonik template (sql`…`, sql.fragment`…`, sql.type(X)`…`, sql.typeAlias('x')`…`) in a file, interpolations kept as written. */
export function sqlTemplates(file: string): SqlTemplate[] {
  const source = readSource(file);
  const templates: SqlTemplate[] = [];
  const opener = /\bsql(?:\.fragment|\.type\([^()`]*\)|\.typeAlias\([^()`]*\))?`/g;
  for (let match = opener.exec(source); match; match = opener.exec(source)) {
    const start = match.index + match[0].length - 1;
    templates.push({ file, line: source.slice(0, match.index).split('\n').length, text: source.slice(start, templateEnd(source, start)) });
  }
  return templates;
}
