// Replay histories are append-only: a history records what an older version of a workflow did, and
// replaying it proves today's code still resumes such runs. Overwriting it with a newer run would
// silently drop that proof, so a file that exists is never replaced.
import { writeFile } from 'node:fs/promises';

export type HistoryWrite = { file: URL; outcome: 'written' | 'exists' };

/** Writes `<name>.json` in `dir` unless a history of that name is already there. */
export async function writeHistoryOnce(dir: URL, name: string, json: string): Promise<HistoryWrite> {
  const file = new URL(`${name}.json`, dir);
  try {
    // `wx`: create only; fails with EEXIST instead of truncating an existing file.
    await writeFile(file, `${json}\n`, { flag: 'wx' });
    return { file, outcome: 'written' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { file, outcome: 'exists' };
    throw error;
  }
}
