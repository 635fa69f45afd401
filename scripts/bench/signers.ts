// Signers for load tests that need many distinct users: the embedded identity provider (whose JWKS the API verifies tokens against) and access tokens minted in
// bulk with `rally loadtest users`. Both must share the API's PUBLIC_URL (the tokens' audience) and RALLY_IDP_PORT (their issuer), so they take the API
// process's environment.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeExit, spawnPrefixed, stopChild } from '../lib/child-process.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');
const READY_TIMEOUT_MS = 30_000;
/** The CLI signs with one core; two processes use both while nothing else runs. */
const MINTING_PROCESSES = 2;
/** Signers are provisioned for the warm-up's rate × this, so that none is used twice. */
const RATE_MARGIN = 1.6;
/**
 * Assumed at least, so a slow warm-up does not leave the measurement short of signers: × RATE_MARGIN, above
 * issue 43's 2,000/s. At 800, a hot round that signed 1,514/s after a slower warm-up ran out (INVALID).
 */
const FLOOR_RATE = 1_500;

type Log = (line: string) => void;

export type Signer = Readonly<{ userId: string; accessToken: string }>;

/** The embedded identity provider on RALLY_IDP_PORT of `serviceEnv`; resolves once its discovery document answers. */
export async function startIdentityProvider(serviceEnv: NodeJS.ProcessEnv, log: Log): Promise<{ issuer: string; stop(): Promise<void> }> {
  const issuer = `http://127.0.0.1:${serviceEnv.RALLY_IDP_PORT ?? '3001'}`;
  const child = spawnPrefixed({ name: 'idp', command: process.execPath, args: ['identity-provider/main.ts'], cwd: REPOSITORY_ROOT, env: serviceEnv });
  let exit: string | undefined;
  void child.exited.then((info) => {
    exit = describeExit(info);
  });
  const stop = async () => {
    child.silence();
    await stopChild(child, 10_000);
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exit) throw new Error(`the identity provider exited during start-up (${exit})`);
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    if (response?.ok) {
      log(`identity provider ready at ${issuer}`);
      return { issuer, stop };
    }
    await sleep(200);
  }
  await stop();
  throw new Error(`the identity provider did not answer at ${issuer} within ${READY_TIMEOUT_MS / 1000} s`);
}

function mintBatch(serviceEnv: NodeJS.ProcessEnv, count: number): Promise<Signer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/rally-cli.ts', 'loadtest', 'users', '--count', String(count)], {
      cwd: REPOSITORY_ROOT,
      env: serviceEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const signers: Signer[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (!line.trim()) return;
      const parsed = JSON.parse(line) as { id: string; access_token: string };
      signers.push({ userId: parsed.id, accessToken: parsed.access_token });
    });
    const closed = new Promise<void>((done) => lines.once('close', () => done()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      void closed.then(() => {
        if (code === 0 && signers.length === count) resolve(signers);
        else
          reject(
            new Error(`rally loadtest users --count ${count} ended with ${signal ?? `exit code ${code}`} after ${signers.length} tokens: ${stderr.trim()}`),
          );
      });
    });
  });
}

/** `count` new users with access tokens the API (started with `serviceEnv`) accepts. */
export async function mintSigners(serviceEnv: NodeJS.ProcessEnv, count: number, log: Log): Promise<Signer[]> {
  if (count <= 0) return [];
  const started = performance.now();
  const share = Math.ceil(count / MINTING_PROCESSES);
  const sizes = Array.from({ length: MINTING_PROCESSES }, (_, index) => Math.max(0, Math.min(share, count - index * share))).filter((size) => size > 0);
  const batches = await Promise.all(sizes.map((size) => mintBatch(serviceEnv, size)));
  const seconds = (performance.now() - started) / 1000;
  log(`minted ${count.toLocaleString('en-US')} users with access tokens in ${seconds.toFixed(1)} s (${Math.round(count / seconds).toLocaleString('en-US')}/s)`);
  return batches.flat();
}

/** push(...items) overflows the stack for long arrays. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

export function planned(used: number, rate: number, seconds: number, connections: number): number {
  return used + Math.ceil(Math.max(rate, FLOOR_RATE) * seconds * RATE_MARGIN) + connections;
}

/** Distinct users with tokens, minted as needed; `next` is the first never handed out, so no signer signs twice. */
export type SignerPool = { signers: Signer[]; next: number; ensure(count: number): Promise<void> };

export function createSignerPool(serviceEnv: NodeJS.ProcessEnv, log: (line: string) => void): SignerPool {
  const signers: Signer[] = [];
  return {
    signers,
    next: 0,
    async ensure(count: number): Promise<void> {
      if (count > signers.length) append(signers, await mintSigners(serviceEnv, count - signers.length, log));
    },
  };
}
