// Shared by scripts/run.mjs and bin/rally.js. Plain JavaScript on purpose: it is the one piece that must run on whatever `node` the user has (Node 20
// included), so that a fresh clone needs nothing but Node.js. It installs dependencies when they are missing or stale, and, when the running Node cannot strip
// TypeScript types (< 24), re-executes the entry with the Node 24 that ships as the `node` npm dependency.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const MINIMUM_NODE_MAJOR = 24;
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function dependenciesNeedInstall() {
  const installedLock = path.join(packageRoot, 'node_modules', '.package-lock.json');
  if (!existsSync(installedLock)) return true;
  const lock = path.join(packageRoot, 'package-lock.json');
  // npm writes node_modules/.package-lock.json after package-lock.json, so a lock file that is newer
  // may mean someone pulled or edited dependencies since the last install. A checkout (a clone, a git
  // worktree) also makes it newer without changing it, so the contents decide.
  if (!existsSync(lock) || statSync(lock).mtimeMs <= statSync(installedLock).mtimeMs) return false;
  if (!installedMatchesLock(lock, installedLock)) return true;
  const now = new Date();
  utimesSync(installedLock, now, now);
  return false;
}

/** Whether every package the lock file asks for is installed at its version (platform-specific optional ones may be absent). */
export function installedMatchesLock(lockPath, installedPath) {
  try {
    const wanted = JSON.parse(readFileSync(lockPath, 'utf8')).packages ?? {};
    const installed = JSON.parse(readFileSync(installedPath, 'utf8')).packages ?? {};
    return Object.entries(wanted).every(([where, entry]) => {
      if (where === '') return true;
      const found = installed[where];
      return found ? found.version === entry.version : entry.optional === true;
    });
  } catch {
    return false;
  }
}

function installDependencies() {
  process.stderr.write('rally: installing dependencies (npm ci)…\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci'], { cwd: packageRoot, stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`rally: could not run npm ci: ${result.error.message}\n`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function bundledNodePath() {
  const binary = process.platform === 'win32' ? 'node.exe' : 'node';
  return path.join(packageRoot, 'node_modules', 'node', 'bin', binary);
}

/** Runs the entry in a Node 24 child, passing signals on and mirroring how the child ended. */
function runInBundledNode(entry, args) {
  const node = bundledNodePath();
  if (!existsSync(node)) {
    process.stderr.write(
      `rally: Node.js ${process.versions.node} cannot run TypeScript and ${node} is missing; ` + 'run `npm ci` or install Node.js 24 or later.\n',
    );
    process.exit(1);
  }
  process.stderr.write(`rally: Node.js ${process.versions.node} cannot run TypeScript directly; ` + `using ${path.relative(process.cwd(), node) || node}\n`);
  const child = spawn(node, [entry, ...args], { stdio: 'inherit' });
  // The child usually gets terminal signals itself (same process group); forwarding covers signals
  // sent to this process alone, e.g. by a supervisor or `kill`. Children must tolerate a repeat.
  const forward = (signal) => {
    if (child.exitCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`rally: could not start ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const name of FORWARDED_SIGNALS) process.off(name, forward);
    // Dying of the same signal lets our own parent (npm, a shell) see what really happened.
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}

/**
 * Runs a TypeScript entry point. On Node >= 24 the entry is imported into this very process (so
 * signals and exit codes need no relaying); note that `import.meta.main` is then false in it.
 */
export async function runTypeScriptEntry(entry, args) {
  if (dependenciesNeedInstall()) installDependencies();
  const absoluteEntry = path.resolve(entry);
  if (!existsSync(absoluteEntry)) {
    process.stderr.write(`rally: no such script: ${entry}\n`);
    process.exit(1);
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (major < MINIMUM_NODE_MAJOR) {
    runInBundledNode(absoluteEntry, args);
    return;
  }
  process.argv = [process.argv[0], absoluteEntry, ...args];
  await import(pathToFileURL(absoluteEntry).href);
}
