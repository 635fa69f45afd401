// Finds the Temporal CLI (which contains the dev server): `temporal` on PATH, the per-user cache, the SDK's own download, else a build from Go modules,
// printing the order and each step's outcome. Nothing found: TemporalCliUnavailableError, naming each step's outcome. The choice itself is chooseTemporalCli(),
// which takes the steps as functions so a unit test can drive it.
import { spawn, spawnSync } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { downloadCliWithSdk } from './temporal-cli-download.ts';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const GO_FALLBACK_PATH = '/usr/local/go/bin/go';
const PROGRESS_EVERY_MS = 15_000;
const BUILD_LOCK_NAME = '.temporal-build.lock';

type Env = Readonly<Record<string, string | undefined>>;
type Log = (line: string) => void;

export class TemporalCliUnavailableError extends Error {
  override name = 'TemporalCliUnavailableError';
}

export async function isExecutable(file: string): Promise<boolean> {
  return access(file, fsConstants.X_OK).then(
    () => true,
    () => false,
  );
}

export async function findOnPath(command: string, env: Env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, command);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function temporalCacheBinDir(env: Env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache');
  return path.join(cacheHome, 'rally', 'bin');
}

/** A half-copied binary would fail here, so a cached file is only trusted when it runs. */
function cliRuns(cli: string): boolean {
  return spawnSync(cli, ['--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function buildLockIsHeld(lockFile: string): Promise<boolean> {
  const holder = Number(await readFile(lockFile, 'utf8').catch(() => ''));
  return Number.isInteger(holder) && holder > 0 && processIsAlive(holder);
}

/** Takes the build lock (an exclusive file holding our pid); false when a live process holds it. */
async function tryTakeBuildLock(lockFile: string): Promise<boolean> {
  try {
    const handle = await open(lockFile, 'wx');
    await handle.writeFile(String(process.pid));
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (await buildLockIsHeld(lockFile)) return false;
  await rm(lockFile, { force: true }); // left behind by a build that was killed
  return tryTakeBuildLock(lockFile);
}

/** `go install <modules>` with GOBIN=binDir, logging progress every 15 s; rejects on failure. */
export function runGoInstall(go: string, modules: readonly string[], binDir: string, env: Env, log: Log): Promise<void> {
  const started = Date.now();
  const progress = setInterval(() => {
    log(`still building ${modules.join(' ')} (${Math.round((Date.now() - started) / 1000)} s)…`);
  }, PROGRESS_EVERY_MS);
  const child = spawn(go, ['install', ...modules], {
    env: { ...env, GOBIN: binDir },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`go install ${modules.join(' ')} failed (${signal ?? `exit code ${code}`})`));
    });
  }).finally(() => clearInterval(progress));
}

async function waitForOtherBuild(lockFile: string, what: string, log: Log): Promise<void> {
  log(`another process is building ${what}; waiting for it…`);
  const started = Date.now();
  let lastReport = started;
  while (await buildLockIsHeld(lockFile)) {
    if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = Date.now();
      log(`still waiting for the build of ${what} (${Math.round((lastReport - started) / 1000)} s)…`);
    }
    await sleep(1000);
  }
}

export type CachedBuild = Readonly<{
  binDir: string;
  /** Named in log lines: "the Temporal CLI". */
  what: string;
  /** Lock file name inside binDir; one per thing built, so different builds do not wait on each other. */
  lockName: string;
  /** True when what the build makes is already there and runs. */
  isBuilt: () => Promise<boolean>;
  build: () => Promise<void>;
}>;

/** Runs `build` once per machine: concurrent callers wait for the first one (a lock file holding its pid). */
export async function buildOnceIntoCache(target: CachedBuild, log: Log): Promise<void> {
  await mkdir(target.binDir, { recursive: true });
  const lockFile = path.join(target.binDir, target.lockName);
  while (!(await tryTakeBuildLock(lockFile))) {
    await waitForOtherBuild(lockFile, target.what, log);
    if (await target.isBuilt()) return;
  }
  try {
    if (await target.isBuilt()) return; // another caller finished just before us
    await target.build();
  } finally {
    await rm(lockFile, { force: true });
  }
  if (!(await target.isBuilt())) throw new Error(`the freshly built ${target.what} does not run`);
}

async function buildIntoCache(go: string, binDir: string, cli: string, env: Env, log: Log): Promise<string> {
  await buildOnceIntoCache(
    {
      binDir,
      what: 'the Temporal CLI',
      lockName: BUILD_LOCK_NAME,
      isBuilt: async () => (await isExecutable(cli)) && cliRuns(cli),
      build: async () => {
        log(`building the Temporal CLI with ${go} install ${TEMPORAL_CLI_MODULE} into ${binDir} (this takes a few minutes, once)…`);
        await runGoInstall(go, [TEMPORAL_CLI_MODULE], binDir, env, log);
      },
    },
    log,
  );
  return cli;
}

/** One way of getting the CLI: `found` is its path; `skipped` says why this way gave nothing. */
export type LookupOutcome = { path: string } | { skipped: string };
export type LookupStep = Readonly<{ label: string; find: () => Promise<LookupOutcome> }>;

/** Tries each step in order, logging the order first and then every outcome; the first path wins. */
export async function chooseTemporalCli(steps: readonly LookupStep[], log: Log, what = 'the Temporal CLI'): Promise<string> {
  log(`looking for ${what}, in this order: ${steps.map((step, index) => `(${index + 1}) ${step.label}`).join('; ')}`);
  const outcomes: string[] = [];
  for (const [index, step] of steps.entries()) {
    let outcome: LookupOutcome;
    try {
      outcome = await step.find();
    } catch (error) {
      outcome = { skipped: `failed: ${(error as Error).message}` };
    }
    if ('path' in outcome) {
      log(`(${index + 1}) ${step.label}: found ${outcome.path}`);
      return outcome.path;
    }
    log(`(${index + 1}) ${step.label}: ${outcome.skipped}`);
    outcomes.push(`${step.label}: ${outcome.skipped}`);
  }
  throw new TemporalCliUnavailableError(
    `${what} could not be had (${outcomes.join('; ')}). ` +
      'Install it (https://docs.temporal.io/cli), install Go, or set TEMPORAL_ADDRESS to an existing Temporal server.',
  );
}

/** A CLI left in the cache by an earlier build (`temporal`) or SDK download (`cli-…`), if it runs. */
async function findCached(binDir: string): Promise<LookupOutcome> {
  if (await buildLockIsHeld(path.join(binDir, BUILD_LOCK_NAME))) return { skipped: 'a build into it is in progress; waiting for it in step 4' };
  const names = await readdir(binDir).catch(() => [] as string[]);
  const candidates = names
    .filter((name) => name === 'temporal' || (name.startsWith('cli-') && !name.endsWith('.tar.gz')))
    .sort((a, b) => Number(b === 'temporal') - Number(a === 'temporal'));
  for (const name of candidates) {
    const file = path.join(binDir, name);
    if ((await isExecutable(file)) && cliRuns(file)) return { path: file };
  }
  return { skipped: `nothing usable in ${binDir}` };
}

/** Go on PATH, then /usr/local/go/bin/go; undefined when neither is there. */
export async function findGo(env: Env): Promise<string | undefined> {
  return (await findOnPath('go', env)) ?? ((await isExecutable(GO_FALLBACK_PATH)) ? GO_FALLBACK_PATH : undefined);
}

// The steps, in order: 1. `temporal` on PATH; 2. the per-user cache, $XDG_CACHE_HOME/rally/bin (default
// ~/.cache/rally/bin): a CLI built or downloaded there before; 3. the download the Temporal SDK does itself
// (temporal-cli-download.ts), only where temporal.download answers; 4. a build from Go modules with `go
// install` into the cache (minutes; a lock file keeps concurrent callers from building twice: the second one
// waits for the first). Machines that reach nothing but package registries (the Go module proxy among them)
// need this step.
export async function resolveTemporalCli(log: Log, env: Env = process.env): Promise<string> {
  const binDir = temporalCacheBinDir(env);
  return chooseTemporalCli(
    [
      {
        label: 'temporal on PATH',
        async find() {
          const found = await findOnPath('temporal', env);
          return found ? { path: found } : { skipped: 'not found' };
        },
      },
      { label: `the per-user cache ${binDir}`, find: () => findCached(binDir) },
      { label: "the Temporal SDK's download from temporal.download", find: () => downloadCliWithSdk(binDir) },
      {
        label: `a build from Go modules (go install ${TEMPORAL_CLI_MODULE})`,
        async find() {
          const go = await findGo(env);
          if (!go) return { skipped: 'Go is not installed (looked on PATH and at /usr/local/go/bin/go)' };
          return { path: await buildIntoCache(go, binDir, path.join(binDir, 'temporal'), env, log) };
        },
      },
    ],
    log,
  );
}
