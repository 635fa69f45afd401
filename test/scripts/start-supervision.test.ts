// `npm start` keeps running (issue 17): each part killed with SIGKILL (worker, API, identity provider, Temporal dev server) comes back by itself, and the API
// answers 503 degraded on /health while Temporal is restarting. Runs scripts/start.ts as `npm start` does, on free ports, a temporary data folder and a fresh
// database on the test PostgreSQL server (DATABASE_URL set, so no embedded server).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { testEnvironment } from '../support/environment.ts';
import { eventually } from '../support/events.ts';
import { freePort } from '../support/processes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESTART_TIMEOUT_MS = 180_000;

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(testEnvironment().databaseUrl, 'postgres') });
  await admin.connect();
  await admin.query(sql);
  await admin.end();
}

describe('npm start (scripts/start.ts) keeps its parts running', function () {
  this.timeout(900_000);
  const database = `rally_start_${randomBytes(4).toString('hex')}`;
  let dataDir: string;
  let start: ChildProcess;
  let output = '';
  let apiUrl: string;
  let idpUrl: string;

  /** The pid the supervisor last reported for a part ("started …" or "restarted … (pid N)"). */
  const pidOf = (part: string): number | undefined => {
    const matches = [...output.matchAll(new RegExp(`rally: (?:re)?started ${part} \\(pid (\\d+)\\)`, 'g'))];
    return matches.length ? Number(matches.at(-1)![1]) : undefined;
  };
  const health = () =>
    fetch(`${apiUrl}/health`).then(
      async (response) => ({ status: response.status, body: (await response.json()) as { status: string } }),
      () => undefined,
    );

  before(async () => {
    await adminQuery(`CREATE DATABASE ${database}`);
    dataDir = await mkdtemp(path.join(tmpdir(), 'rally-start-'));
    const [port, idpPort, temporalPort, uiPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    apiUrl = `http://127.0.0.1:${port}`;
    idpUrl = `http://127.0.0.1:${idpPort}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      PUBLIC_URL: `http://localhost:${port}`,
      RALLY_IDP_PORT: String(idpPort),
      DATABASE_URL: withDatabase(testEnvironment().databaseUrl, database),
      RALLY_DATA_DIR: dataDir,
      RALLY_TEMPORAL_DEV_PORT: String(temporalPort),
      RALLY_TEMPORAL_UI_PORT: String(uiPort),
      RALLY_TEMPORAL_DB_FILE: path.join(dataDir, 'temporal.sqlite'),
    };
    delete env.TEMPORAL_ADDRESS;
    delete env.OIDC_ISSUER;
    start = spawn(process.execPath, ['scripts/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    start.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    start.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await explainedByOutput(async () => {
      await eventually(async () => (output.includes('Press Ctrl-C to stop') ? true : undefined), RESTART_TIMEOUT_MS, 'npm start to be up');
      await eventually(async () => (output.includes('"polling"') ? true : undefined), RESTART_TIMEOUT_MS, 'the worker to poll');
    });
  });

  /** A start-up that fails says why in what npm start printed, so the failure carries it. */
  async function explainedByOutput(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      throw new Error(`${(error as Error).message}; npm start printed (last 8,000 characters):\n${output.slice(-8_000)}`);
    }
  }

  after(async () => {
    if (process.env.RALLY_TEST_SHOW_OUTPUT === '1') process.stderr.write(output);
    if (start && start.exitCode === null) {
      const exited = new Promise((resolve) => start.once('exit', resolve));
      start.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  async function killAndAwaitRestart(part: string): Promise<number> {
    const before = pidOf(part);
    expect(before, `${part} pid`).to.be.a('number');
    process.kill(before!, 'SIGKILL');
    return eventually(
      async () => {
        const now = pidOf(part);
        return now !== undefined && now !== before ? now : undefined;
      },
      RESTART_TIMEOUT_MS,
      `${part} to be restarted`,
    );
  }

  it('restarts a killed worker, which polls again', async () => {
    const polled = output.split('"polling"').length;
    await killAndAwaitRestart('worker');
    expect(output).to.match(/rally: worker exited unexpectedly \(signal SIGKILL\); restarting it in \d+ s/);
    await eventually(async () => (output.split('"polling"').length > polled ? true : undefined), RESTART_TIMEOUT_MS, 'the new worker to poll');
  });

  it('restarts a killed API, which answers again', async () => {
    await killAndAwaitRestart('api');
    await eventually(async () => ((await health())?.status === 200 ? true : undefined), RESTART_TIMEOUT_MS, 'the new API to answer');
  });

  it('restarts a killed identity provider, which serves its discovery document again', async () => {
    await killAndAwaitRestart('identity');
    await eventually(
      () =>
        fetch(`${idpUrl}/.well-known/openid-configuration`).then(
          (response) => (response.ok ? true : undefined),
          () => undefined,
        ),
      RESTART_TIMEOUT_MS,
      'the identity provider to answer',
    );
  });

  it('restarts a killed Temporal dev server; /health answers 503 degraded meanwhile and 200 once it is back', async () => {
    const before = pidOf('temporal');
    process.kill(before!, 'SIGKILL');
    const degraded = await eventually(
      async () => {
        const answer = await health();
        return answer?.status === 503 ? answer : undefined;
      },
      30_000,
      '/health 503',
    );
    expect(degraded.body.status).to.equal('degraded');
    await eventually(
      async () => {
        const now = pidOf('temporal');
        return now !== undefined && now !== before ? now : undefined;
      },
      RESTART_TIMEOUT_MS,
      'temporal to be restarted',
    );
    await eventually(async () => ((await health())?.status === 200 ? true : undefined), RESTART_TIMEOUT_MS, '/health 200 again');
    expect(start.exitCode).to.equal(null);
  });
});
