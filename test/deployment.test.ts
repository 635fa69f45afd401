// The deployment files (Dockerfile, compose.yaml). Where Docker Compose is installed, `docker compose
// config` validates compose.yaml against the Compose specification; where it is not (the docker CLI
// without its compose plugin), that step reports so and the structure below is checked on its own.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { parse } from 'yaml';
import { TEMPORAL_CONFIG_DIR, TEMPORAL_CONFIG_ENV } from '../scripts/lib/cluster-layout.ts';
import { COMPOSE_HAPROXY, haproxyConfig, READINESS_PATH } from '../scripts/lib/haproxy.ts';
import { COMPOSE_PGBOUNCER, PGBOUNCER_POOL_MODE, pgBouncerIni } from '../scripts/lib/pgbouncer.ts';
import { nodeArguments } from '../scripts/lib/topology-processes.ts';
import { loadTemporalSettings } from '../scripts/lib/temporal-settings.ts';

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
  entrypoint?: string[];
  volumes?: (string | { source: string; target: string })[];
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  network_mode?: string;
  deploy?: { replicas?: number };
  ports?: (string | { target: number; published?: string; host_ip?: string })[];
  stop_grace_period?: string;
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

const volumeOf = (volume: string | { source: string; target: string }) => {
  if (typeof volume !== 'string') return volume;
  const [source, target] = volume.split(':');
  return { source: source!, target: target! };
};

/** The file of the repository a service mounts at `target`. */
function mountSource(service: Service, target: string): string {
  const volume = (service.volumes ?? []).map(volumeOf).find((each) => each.target === target);
  if (!volume) throw new Error(`nothing mounted at ${target}`);
  return path.resolve(ROOT, volume.source);
}

describe('deployment (Dockerfile, compose.yaml)', function () {
  this.timeout(60_000);

  let services: Record<string, Service>;
  before(async () => {
    const validated = await composeConfig();
    if (typeof validated === 'string') process.stdout.write(`      (${validated}; checking the structure only)\n`);
    const file = parse(await readFile(`${ROOT}compose.yaml`, 'utf8'), { merge: true }) as { services: Record<string, Service> };
    services = typeof validated === 'string' ? file.services : validated.services;
  });

  it('compose.yaml runs PostgreSQL, PgBouncer, Temporal with its UI, migrations, the API and scalable workers', async () => {
    expect(services).to.include.keys('haproxy', 'postgres', 'pgbouncer', 'temporal-schema', 'temporal', 'temporal-ui', 'migrate', 'api', 'worker', 'identity');
    expect(services.temporal!.image).to.match(/^temporalio\/server:/);
    expect(services['temporal-ui']!.image).to.match(/^temporalio\/ui:/);
    expect(services.api!.command).to.deep.equal(['node', ...nodeArguments('api')]);
    expect(services.worker!.command).to.deep.equal(['node', ...nodeArguments('worker')]);
    expect(services.worker!.deploy?.replicas).to.be.greaterThan(1);
    for (const name of ['api', 'worker', 'migrate']) {
      expect(services[name]!.environment, name).to.include({ NODE_ENV: 'production', TEMPORAL_ADDRESS: 'temporal:7233' });
    }
    // Production refuses to serve /metrics without a token (platform/config.ts).
    for (const name of ['api', 'worker']) expect(services[name]!.environment!.RALLY_METRICS_TOKEN, name).to.be.a('string').and.not.equal('');
    expect(services.api!.depends_on?.migrate?.condition).to.equal('service_completed_successfully');
    expect(services.identity!.network_mode).to.equal('service:api');
  });

  it('compose.yaml pools like `npm run cluster`: transaction mode through PgBouncer, LISTEN and migrations direct', async () => {
    for (const name of ['api', 'worker', 'identity']) {
      expect(services[name]!.environment!.DATABASE_URL, name).to.match(new RegExp(`@pgbouncer:${COMPOSE_PGBOUNCER.listenPort}/rally$`));
      expect(services[name]!.environment!.DATABASE_LISTEN_URL, name).to.match(/@postgres:5432\/rally$/);
    }
    expect(services.migrate!.environment!.DATABASE_URL, 'migrations hold a session advisory lock').to.match(/@postgres:5432\/rally$/);
    const mounted = mountSource(services.pgbouncer!, '/etc/pgbouncer/pgbouncer.ini');
    const ini = (await readFile(mounted, 'utf8')).replace(/^;.*\n/gm, '');
    expect(ini, `${mounted} must be pgBouncerIni(COMPOSE_PGBOUNCER) of scripts/lib/pgbouncer.ts`).to.equal(pgBouncerIni(COMPOSE_PGBOUNCER));
    expect(ini).to.match(new RegExp(`^pool_mode = ${PGBOUNCER_POOL_MODE}$`, 'm'));
  });

  it('compose.yaml puts HAProxy in front of the API: readiness checks, the configuration of `npm run cluster`, the only published API port', async () => {
    const mounted = mountSource(services.haproxy!, '/usr/local/etc/haproxy/haproxy.cfg');
    const config = (await readFile(mounted, 'utf8')).replace(/^#.*\n/gm, '');
    expect(config, `${mounted} must be haproxyConfig(COMPOSE_HAPROXY) of scripts/lib/haproxy.ts`).to.equal(haproxyConfig(COMPOSE_HAPROXY));
    expect(config)
      .to.include(`uri ${READINESS_PATH}`)
      .and.match(/ slowstart \d+s/);
    expect(config, 'the API service and port HAProxy resolves').to.match(/ api:3000 check /);
    const published = (service: Service) =>
      (service.ports ?? []).map((port) => (typeof port === 'string' ? port : [port.host_ip, port.published, port.target].filter(Boolean).join(':')));
    expect(published(services.haproxy!)).to.include.members(['3000:3000', '127.0.0.1:8404:8404']);
    expect(published(services.api!), 'clients reach the API through HAProxy only').to.deep.equal([]);
    expect(services.api!.environment!.RALLY_TRUST_PROXY, 'HAProxy is one hop that adds X-Forwarded-For').to.equal('1');
  });

  it("compose.yaml runs the Temporal server with the configuration file of `npm run cluster` and temporal.yaml's search attributes", async () => {
    const configFile = `${TEMPORAL_CONFIG_DIR}/${TEMPORAL_CONFIG_ENV}.yaml`;
    const target = [...(services.temporal!.volumes ?? [])].map(volumeOf).find((volume) => path.resolve(ROOT, volume.source) === path.resolve(ROOT, configFile));
    expect(target, `compose.yaml mounts ${configFile} into the temporal service`).to.not.equal(undefined);
    const command = [...(services.temporal!.entrypoint ?? []), ...(services.temporal!.command ?? [])].join(' ');
    const configDir = command.match(/--config (\S+)/)?.[1];
    expect(path.posix.join('/', configDir ?? '', `${TEMPORAL_CONFIG_ENV}.yaml`), 'where the server reads its configuration').to.equal(target!.target);
    expect(command).to.include(`--env ${TEMPORAL_CONFIG_ENV}`);
    expect(await readFile(path.join(ROOT, configFile), 'utf8'), 'the server renders it as a template').to.match(/^# enable-template/);
    const settings = loadTemporalSettings();
    const setup = (services['temporal-setup']!.command ?? []).join(' ');
    expect(setup).to.include(`--namespace ${settings.namespace}`);
    const pairs =
      setup
        .match(/for pair in ([\w:\s]+?); do/)?.[1]
        ?.split(/\s+/)
        .filter(Boolean) ?? [];
    const registered = Object.fromEntries(pairs.map((pair) => pair.split(':') as [string, string]));
    expect(registered, 'search attributes registered, with their types').to.deep.equal(settings.searchAttributes);
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
    // The image's default command is the API, started as every other deployment starts it.
    expect(JSON.parse(/^CMD\s+(\[.*\])$/m.exec(dockerfile)![1]!)).to.deep.equal(['node', ...nodeArguments('api')]);
    expect(await readFile(`${ROOT}.dockerignore`, 'utf8'))
      .to.match(/^node_modules$/m)
      .and.match(/^\.data$/m);
  });
});
