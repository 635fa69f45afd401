// The project's code files that Prettier formats (.ts, .js, .mjs outside node_modules, .git, .data and dist, minus
// .prettierignore), for the tests that check every one of them: line width and file headers.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CODE = /\.(ts|js|mjs)$/;
const NEVER = new Set(['node_modules', '.git', '.data', 'dist']);

async function codeFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return NEVER.has(entry.name) ? [] : codeFiles(full);
      return CODE.test(entry.name) ? [full] : [];
    }),
  );
  return nested.flat();
}

async function formatted(file: string): Promise<boolean> {
  const info = await prettier.getFileInfo(file, { ignorePath: path.join(ROOT, '.prettierignore') });
  return !info.ignored && info.inferredParser !== null;
}

/** Absolute paths, sorted. */
export async function formattedCodeFiles(): Promise<string[]> {
  const files = (await codeFiles(ROOT)).sort();
  const checked = await Promise.all(files.map(async (file) => ((await formatted(file)) ? file : null)));
  return checked.filter((file): file is string => file !== null);
}
