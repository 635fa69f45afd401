// Step 3 of the Temporal CLI lookup (temporal-cli.ts): the download the Temporal SDK itself does for
// TestWorkflowEnvironment.createLocal(), from temporal.download, into the per-user cache. Only tried
// where that server answers; a machine that reaches nothing but package registries skips it quickly.
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

const DOWNLOAD_HOST = 'https://temporal.download/';
const REACHABILITY_TIMEOUT_MS = 5_000;

export type DownloadOutcome = { path: string } | { skipped: string };

/** Whether temporal.download answers at all (any HTTP status counts as reachable). */
export async function downloadServerReachable(): Promise<boolean> {
  try {
    await fetch(DOWNLOAD_HOST, { method: 'HEAD', signal: AbortSignal.timeout(REACHABILITY_TIMEOUT_MS) });
    return true;
  } catch {
    return false;
  }
}

// The SDK names its download `cli-<sdk>-<version>` (or `cli-<version>`); the newest one is ours.
async function newestDownloadedCli(dir: string): Promise<string | undefined> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.startsWith('cli-') && !name.endsWith('.tar.gz'));
  const dated = await Promise.all(names.map(async (name) => ({ file: path.join(dir, name), mtime: (await stat(path.join(dir, name))).mtimeMs })));
  return dated.sort((a, b) => b.mtime - a.mtime)[0]?.file;
}

/**
 * Lets the SDK download the CLI into `dir` by starting (and at once stopping) a throw-away dev
 * server, which is how the SDK exposes its download. `@temporalio/testing` is a development
 * dependency, so a production install skips this step.
 */
export async function downloadCliWithSdk(dir: string): Promise<DownloadOutcome> {
  if (!(await downloadServerReachable())) return { skipped: `${DOWNLOAD_HOST} is not reachable from this machine` };
  let testing: typeof import('@temporalio/testing');
  try {
    testing = await import('@temporalio/testing');
  } catch {
    return { skipped: '@temporalio/testing (a development dependency) is not installed' };
  }
  try {
    await mkdir(dir, { recursive: true });
    const environment = await testing.TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'cached-download', downloadDir: dir }, ip: '127.0.0.1' },
    });
    await environment.teardown();
  } catch (error) {
    return { skipped: `the SDK download failed: ${(error as Error).message}` };
  }
  const cli = await newestDownloadedCli(dir);
  return cli ? { path: cli } : { skipped: `the SDK reported success but no CLI is in ${dir}` };
}
