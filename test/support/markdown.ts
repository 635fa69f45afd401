// Reading the repository's Markdown the way GitHub renders it, for the documentation drift tests
// (test/docs/): fenced blocks with their info strings, headings and their anchors, links, and the
// inline code spans that name repository paths.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Not documentation of this repository: dependencies, local state, recorded or generated output.
const SKIPPED = new Set(['node_modules', '.git', '.data', 'dist', 'bench-results', 'test/histories', 'test/support/generated']);

/** Every Markdown file of the repository, relative to its root (e.g. `docs/guides/sdk.md`). */
export async function markdownFiles(dir = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (SKIPPED.has(relative) || SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory()) files.push(...(await markdownFiles(relative)));
    else if (entry.name.endsWith('.md')) files.push(relative);
  }
  return files.sort();
}

export const readDocument = (relative: string) => readFile(path.join(ROOT, relative), 'utf8');

export type FencedBlock = { info: string; code: string; line: number };
export type Prose = { text: string; line: number };

/** Splits a document into its fenced code blocks and the prose lines between them. */
export function parse(markdown: string): { blocks: FencedBlock[]; prose: Prose[] } {
  const blocks: FencedBlock[] = [];
  const prose: Prose[] = [];
  let open: { fence: string; info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fence = /^\s{0,3}(`{3,}|~{3,})\s*(.*)$/.exec(text);
    if (open) {
      if (fence && fence[1]!.startsWith(open.fence) && fence[2] === '') {
        blocks.push({ info: open.info, code: `${open.lines.join('\n')}\n`, line: open.line });
        open = undefined;
      } else open.lines.push(text);
    } else if (fence) open = { fence: fence[1]!, info: fence[2]!.trim(), line: index + 1, lines: [] };
    else prose.push({ text, line: index + 1 });
  });
  return { blocks, prose };
}

/** Prose with inline code spans removed (links inside them are not links). */
const withoutCode = (text: string) => text.replace(/(`+)[^`]*?\1/g, '');

/** GitHub's anchor for a heading: rendered text, lower-cased, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/\*+/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a document offers: its headings' slugs (repeats get -1, -2, …) and explicit ids. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of parse(markdown).prose) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id!);
  }
  return found;
}

/** Every link target in prose: inline links and images, reference definitions, and HTML hrefs. */
export function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  for (const { text, line } of parse(markdown).prose) {
    const plain = withoutCode(text);
    for (const [, target] of plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: target!, line });
    for (const [, target] of plain.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)) found.push({ target: target!, line });
    for (const [, target] of plain.matchAll(/\bhref="([^"]+)"/g)) found.push({ target: target!, line });
  }
  return found;
}

/** Inline code spans of the prose (not of fenced blocks), with their lines. */
export function codeSpans(markdown: string): { span: string; line: number }[] {
  const found: { span: string; line: number }[] = [];
  for (const { text, line } of parse(markdown).prose) for (const [, , span] of text.matchAll(/(`+)([^`]+?)\1/g)) found.push({ span: span!.trim(), line });
  return found;
}
