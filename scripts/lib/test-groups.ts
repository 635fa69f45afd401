// Which test files `npm test` runs in parallel test processes and which one at a time afterwards. A file
// is serial only when it cannot share the machine: it kills or restarts shared services, or what it
// asserts depends on having the cores to itself. Each entry says why.
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Test processes at once: the suite mostly waits on workflows, timers and browsers (CONTRIBUTING.md, Tests). */
export const DEFAULT_JOBS = 4;

export const SERIAL_FILES: Readonly<Record<string, string>> = {
  'test/workflows/crash-under-load.test.ts': 'kills the Temporal server and PostgreSQL connections under signing load',
  'test/workflows/webhook-durability.test.ts': 'kills worker processes mid-delivery and counts what arrives',
  'test/rolling-restart.test.ts': 'restarts two APIs behind a proxy under read load and counts failed requests',
  'test/scripts/start-supervision.test.ts': 'runs `npm start` with its own dev server, and kills its parts',
};

export async function listTestFiles(root: string, dir = 'test'): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await listTestFiles(root, relative)));
    else if (entry.name.endsWith('.test.ts')) found.push(relative);
  }
  return found.sort();
}

export function splitTestFiles(files: readonly string[]): { parallel: string[]; serial: string[] } {
  return {
    parallel: files.filter((file) => !(file in SERIAL_FILES)),
    serial: files.filter((file) => file in SERIAL_FILES),
  };
}
