// Runs the embedded identity provider as its own process (identity-provider/main.ts), the way
// npm start does, and speaks to its token endpoint as the API does. Shared by this folder's tests.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnvironment } from '../support/environment.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
export { freePort };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const AUDIENCE = 'http://rally.test';
export const CLIENT = { client_id: 'rally-api', client_secret: 'identity-provider-test-secret' };

export type RunningProvider = { issuer: string; port: number; stop(): Promise<number | null> };

/** Resolves once the process logs "listening"; stop() sends SIGTERM and resolves with the exit code. */
export async function startProvider(port: number, env: Record<string, string> = {}): Promise<RunningProvider> {
  const child = spawn(process.execPath, ['identity-provider/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: testEnvironment().databaseUrl,
      RALLY_IDP_PORT: String(port),
      PUBLIC_URL: AUDIENCE,
      OIDC_CLIENT_ID: CLIENT.client_id,
      OIDC_CLIENT_SECRET: CLIENT.client_secret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };

  const deadline = Date.now() + 30_000;
  while (!output.includes('"message":"listening"')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the identity provider did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { issuer: `http://127.0.0.1:${port}`, port, stop };
}

export function tokenRequest(issuer: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${issuer}/token`, { method: 'POST', body: new URLSearchParams({ ...CLIENT, ...params }) });
}

export function login(issuer: string, username: string, password: string, scope = 'openid email profile offline_access'): Promise<Response> {
  return tokenRequest(issuer, { grant_type: 'password', username, password, scope });
}

export function refresh(issuer: string, refreshToken: string): Promise<Response> {
  return tokenRequest(issuer, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

export function revoke(issuer: string, token: string): Promise<Response> {
  return fetch(`${issuer}/token/revocation`, {
    method: 'POST',
    body: new URLSearchParams({ ...CLIENT, token, token_type_hint: 'refresh_token' }),
  });
}
