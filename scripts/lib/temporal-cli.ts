// Finds the Temporal CLI (which contains the dev server) or builds it. Order:
//   (a) `temporal` on PATH;
//   (b) the cached build, $XDG_CACHE_HOME/rally/bin/temporal (default ~/.cache/rally/bin/temporal);
//   (c) build it there with `go install` (takes minutes; a lock file keeps concurrent callers from
//       building twice: the second one waits for the first);
//   (d) otherwise throw TemporalCliUnavailableError. Callers that only need a throw-away test server
//       may catch it and let @temporalio/testing download the CLI (TestWorkflowEnvironment.createLocal()
//       without an `executable`), which needs access to temporal.download.
import { spawn, spawnSync } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, open, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const GO_FALLBACK_PATH = '/usr/local/go/bin/go';
const PROGRESS_EVERY_MS = 15_000;
const BUILD_LOCK_NAME = '.temporal-build.lock';

type Env = Readonly<Record<string, string | undefined>>;
type Log = (line: string) => void;

export class TemporalCliUnavailableError extends Error {
  override name = 'TemporalCliUnavailableError';
}

async function isExecutable(file: string): Promise<boolean> {
  return access(file, fsConstants.X_OK).then(() => true, () => false);
}

async function findOnPath(command: string, env: Env): Promise<string | undefined> {
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

function runGoInstall(go: string, binDir: string, env: Env, log: Log): Promise<void> {
  const started = Date.now();
  const progress = setInterval(() => {
    log(`still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s)…`);
  }, PROGRESS_EVERY_MS);
  const child = spawn(go, ['install', TEMPORAL_CLI_MODULE], {
    env: { ...env, GOBIN: binDir },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`go install ${TEMPORAL_CLI_MODULE} failed (${signal ?? `exit code ${code}`})`));
    });
  }).finally(() => clearInterval(progress));
}

async function waitForOtherBuild(lockFile: string, log: Log): Promise<void> {
  log('another process is building the Temporal CLI; waiting for it…');
  const started = Date.now();
  let lastReport = started;
  while (await buildLockIsHeld(lockFile)) {
    if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = Date.now();
      log(`still waiting for the Temporal CLI build (${Math.round((lastReport - started) / 1000)} s)…`);
    }
    await sleep(1000);
  }
}

async function buildIntoCache(go: string, binDir: string, cli: string, env: Env, log: Log): Promise<string> {
  await mkdir(binDir, { recursive: true });
  const lockFile = path.join(binDir, BUILD_LOCK_NAME);
  while (!(await tryTakeBuildLock(lockFile))) {
    await waitForOtherBuild(lockFile, log);
    if (await isExecutable(cli) && cliRuns(cli)) return cli;
  }
  try {
    if (await isExecutable(cli) && cliRuns(cli)) return cli; // another caller finished just before us
    log(`building the Temporal CLI with ${go} install ${TEMPORAL_CLI_MODULE} into ${binDir} (this takes a few minutes, once)…`);
    await runGoInstall(go, binDir, env, log);
  } finally {
    await rm(lockFile, { force: true });
  }
  if (!cliRuns(cli)) throw new Error(`the freshly built ${cli} does not run`);
  return cli;
}

export async function resolveTemporalCli(log: Log, env: Env = process.env): Promise<string> {
  const onPath = await findOnPath('temporal', env);
  if (onPath) {
    log(`using the Temporal CLI on PATH: ${onPath}`);
    return onPath;
  }
  const binDir = temporalCacheBinDir(env);
  const cached = path.join(binDir, 'temporal');
  const buildInProgress = await buildLockIsHeld(path.join(binDir, BUILD_LOCK_NAME));
  if (!buildInProgress && (await isExecutable(cached)) && cliRuns(cached)) {
    log(`using the cached Temporal CLI: ${cached}`);
    return cached;
  }
  const go = (await findOnPath('go', env)) ?? ((await isExecutable(GO_FALLBACK_PATH)) ? GO_FALLBACK_PATH : undefined);
  if (go) {
    const built = await buildIntoCache(go, binDir, cached, env, log);
    log(`using the Temporal CLI built into the cache: ${built}`);
    return built;
  }
  throw new TemporalCliUnavailableError(
    'the Temporal CLI was not found (not on PATH, not in ' + binDir + ') and Go is not installed to build it. ' +
      'Install it (https://docs.temporal.io/cli), install Go, or set TEMPORAL_ADDRESS to an existing Temporal server.',
  );
}
