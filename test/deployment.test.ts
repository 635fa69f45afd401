// The deployment files (Dockerfile, compose.yaml). Where Docker Compose is installed, `docker compose
// config` validates compose.yaml against the Compose specification; where it is not (the docker CLI
// without its compose plugin), that step reports so and the structure below is checked on its own.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SECRETS = {
  POSTGRES_PASSWORD: 'pw',
  RALLY_ENCRYPTION_KEY: 'ab'.repeat(32),
  RALLY_MEDIA_SIGNING_KEY: 'k',
  OIDC_CLIENT_SECRET: 's',
  RALLY_METRICS_TOKEN: 'm',
};

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  network_mode?: string;
  deploy?: { replicas?: number };
};

/** `docker compose config` output, or why it could not run here. */
async function composeConfig(): Promise<{ services: Record<string, Service> } | string> {
  const run = promisify(execFile);
  const plugin = await run('docker', ['compose', 'version'], { cwd: ROOT }).then(
    () => undefined,
    (error: { stderr?: string; message: string }) => (error.stderr || error.message).trim().split('\n')[0],
  );
  if (plugin !== undefined) return `docker compose is not installed here: ${plugin}`;
  try {
    const { stdout } = await run('docker', ['compose', '-f', 'compose.yaml', 'config', '--format', 'json'], { cwd: ROOT, env: { ...process.env, ...SECRETS } });
    return JSON.parse(stdout) as { services: Record<string, Service> };
  } catch (error) {
    const message = String((error as { stderr?: string }).stderr ?? (error as Error).message);
    throw new Error(`docker compose config refused compose.yaml: ${message}`);
  }
}

describe('deployment (Dockerfile, compose.yaml)', function () {
  this.timeout(60_000);

  it('compose.yaml runs PostgreSQL, Temporal with its UI, migrations, the API and scalable workers', async () => {
    const validated = await composeConfig();
    if (typeof validated === 'string') process.stdout.write(`      (${validated}; checking the structure only)\n`);
    const file = parse(await readFile(`${ROOT}compose.yaml`, 'utf8'), { merge: true }) as { services: Record<string, Service> };
    const services = typeof validated === 'string' ? file.services : validated.services;
    expect(services).to.include.keys('postgres', 'temporal', 'temporal-ui', 'migrate', 'api', 'worker', 'identity');
    expect(services.temporal!.image).to.match(/^temporalio\/(auto-setup|server):/);
    expect(services['temporal-ui']!.image).to.match(/^temporalio\/ui:/);
    expect(services.api!.command).to.deep.equal(['node', 'api/main.ts']);
    expect(services.worker!.command).to.deep.equal(['node', 'worker/main.ts']);
    expect(services.worker!.deploy?.replicas).to.be.greaterThan(1);
    for (const name of ['api', 'worker', 'migrate']) {
      expect(services[name]!.environment, name).to.include({ NODE_ENV: 'production', TEMPORAL_ADDRESS: 'temporal:7233' });
      expect(services[name]!.environment!.DATABASE_URL, name).to.match(/@postgres:5432\/rally$/);
    }
    // Production refuses to serve /metrics without a token (platform/config.ts).
    for (const name of ['api', 'worker']) expect(services[name]!.environment!.RALLY_METRICS_TOKEN, name).to.be.a('string').and.not.equal('');
    expect(services.api!.depends_on?.migrate?.condition).to.equal('service_completed_successfully');
    expect(services.identity!.network_mode).to.equal('service:api');
  });

  it('the Dockerfile builds in stages on Node 24, prepares the workflow bundle and runs as a non-root user', async () => {
    const dockerfile = await readFile(`${ROOT}Dockerfile`, 'utf8');
    const stages = dockerfile.match(/^FROM\s+\S+/gm) ?? [];
    expect(stages.length).to.be.greaterThan(1);
    expect(stages.every((line) => /node:24\b/.test(line))).to.equal(true);
    expect(dockerfile)
      .to.match(/npm ci --omit=dev/)
      .and.match(/build-workflows\.ts/)
      .and.match(/RALLY_WORKFLOW_BUNDLE=/);
    const users = dockerfile.match(/^USER\s+(\S+)/gm) ?? [];
    expect(users.at(-1)).to.match(/USER\s+node$/);
    expect(await readFile(`${ROOT}.dockerignore`, 'utf8'))
      .to.match(/^node_modules$/m)
      .and.match(/^\.data$/m);
  });
});
