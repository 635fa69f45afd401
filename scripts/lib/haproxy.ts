// HAProxy in front of Rally's API processes, as production runs a load balancer: `npm run cluster`, the
// rolling-restart test and (ops/haproxy/haproxy.cfg, test/deployment.test.ts checks it) compose.yaml all
// run the configuration written here. docs/operations/runbook.md (Rolling restarts) says why each setting.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnPrefixed, stopChild, type PrefixedChild } from './child-process.ts';

/** What the health check asks: 200 means send traffic, anything else (503 while draining) means not. */
export const READINESS_PATH = '/health/ready';
/** A restarted API gets its share of new connections over this long, not all at once. */
export const SLOWSTART = '10s';
/** Consecutive check failures that take a server out, successes that put it back. */
export const CHECK_FALL = 2;
export const CHECK_RISE = 2;

/** The API processes behind it: fixed addresses, or (compose) a DNS name whose addresses fill `slots` servers. */
export type HaproxyServers =
  Readonly<{ kind: 'static'; addresses: readonly string[] }> | Readonly<{ kind: 'dns'; hostname: string; port: number; slots: number; nameserver: string }>;

export type HaproxyTarget = Readonly<{
  bind: string;
  servers: HaproxyServers;
  /** The stats page (HTML at /, CSV at /;csv): what the bench reads HAProxy's own counters from. */
  statsBind: string;
  /** How often each server's readiness is checked; CHECK_FALL of them must fit in the API's RALLY_API_SHUTDOWN_DELAY. */
  checkIntervalMs: number;
  /** Set when started as root: HAProxy reads its configuration, binds, then runs as this user. */
  user?: string;
}>;

/** compose.yaml's load balancer: every `api` container (Docker's DNS), checked every second against the API's 5 s drain. */
export const COMPOSE_HAPROXY: HaproxyTarget = {
  bind: '0.0.0.0:3000',
  servers: { kind: 'dns', hostname: 'api', port: 3000, slots: 8, nameserver: '127.0.0.11:53' },
  statsBind: '0.0.0.0:8404',
  checkIntervalMs: 1_000,
};

// Answered by HAProxy itself only when no API accepts a connection at all (a problem, like Rally's own 503s).
const NO_API_PROBLEM = JSON.stringify({
  type: 'about:blank',
  title: 'Service Unavailable',
  status: 503,
  detail: 'No API process is accepting connections; try again shortly.',
});

function serverLines(servers: HaproxyServers): string[] {
  if (servers.kind === 'static') {
    return [
      ...servers.addresses.map((address, index) => `  server api-${index + 1} ${address} check`),
      // Fail open: when no API is ready (PostgreSQL or Temporal down for all), they still get the requests
      // and answer their own 503 problems, rather than HAProxy refusing what the APIs could serve.
      ...servers.addresses.map((address, index) => `  server api-${index + 1}-fallback ${address} backup`),
    ];
  }
  const name = `${servers.hostname}:${servers.port}`;
  return [
    `  server-template api- 1-${servers.slots} ${name} check resolvers dns init-addr none`,
    `  server-template api-fallback- 1-${servers.slots} ${name} backup resolvers dns init-addr none`,
  ];
}

export function haproxyConfig(target: HaproxyTarget): string {
  const inter = `${target.checkIntervalMs}ms`;
  const { servers } = target;
  return [
    'global',
    ...(target.user ? [`  user ${target.user}`, `  group ${target.user}`] : []),
    '  maxconn 4096',
    // No request log: servers going DOWN and UP are reported on stderr, which is enough here.
    ...(servers.kind === 'dns' ? ['', 'resolvers dns', `  nameserver dns ${servers.nameserver}`, '  hold valid 10s'] : []),
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-request 10s',
    '  timeout http-keep-alive 10s',
    '  timeout tunnel 1h', // /v1/realtime WebSockets
    // A connection an API refuses (it is restarting) is tried once more on another one.
    '  retries 2',
    '  option redispatch 1',
    '',
    'frontend rally',
    `  bind ${target.bind}`,
    '  option forwardfor', // so the APIs run with RALLY_TRUST_PROXY=1
    '  default_backend apis',
    '',
    'backend apis',
    '  balance roundrobin',
    '  option allbackups',
    '  option httpchk',
    `  http-check send meth GET uri ${READINESS_PATH}`,
    '  http-check expect status 200',
    `  default-server inter ${inter} fastinter ${inter} downinter ${inter} fall ${CHECK_FALL} rise ${CHECK_RISE} slowstart ${SLOWSTART}`,
    `  http-error status 503 content-type application/problem+json string '${NO_API_PROBLEM}'`,
    ...serverLines(servers),
    '',
    'listen stats',
    `  bind ${target.statsBind}`,
    '  stats enable',
    '  stats uri /',
    '  stats refresh 5s',
    '',
  ].join('\n');
}

export function haproxyVersion(): string | undefined {
  const result = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.split('\n')[0] : undefined;
}

export type HaproxyOptions = Readonly<{
  dataDir: string;
  bind: string;
  apiAddresses: readonly string[];
  statsBind: string;
  checkIntervalMs?: number;
  log: (line: string) => void;
}>;

export type Haproxy = Readonly<{ child: PrefixedChild; statsUrl: string; stop(): Promise<void> }>;

/** Writes haproxy.cfg into dataDir and runs HAProxy in the foreground; resolves once its stats page answers. */
export async function startHaproxy(options: HaproxyOptions): Promise<Haproxy> {
  const version = haproxyVersion();
  if (!version) throw new Error('haproxy is not installed (Debian: apt-get install -y haproxy)');
  await mkdir(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, 'haproxy.cfg');
  const config = haproxyConfig({
    bind: options.bind,
    servers: { kind: 'static', addresses: options.apiAddresses },
    statsBind: options.statsBind,
    checkIntervalMs: options.checkIntervalMs ?? 250,
    // Debian's package makes this user; the file is read before HAProxy gives up root, and is readable to it anyway.
    user: userInfo().uid === 0 ? 'haproxy' : undefined,
  });
  await writeFile(file, config);
  await chmod(file, 0o644);
  const check = spawnSync('haproxy', ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refused ${file}: ${check.stderr || check.stdout}`);
  options.log(`starting ${version} on ${options.bind} in front of ${options.apiAddresses.join(', ')} (stats on ${options.statsBind})`);
  const child = spawnPrefixed({ name: 'haproxy', command: 'haproxy', args: ['-db', '-f', file] });
  const statsUrl = `http://${options.statsBind}/`;
  const deadline = Date.now() + 10_000;
  while (
    !(await fetch(statsUrl, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    ))
  ) {
    if (child.process.exitCode !== null || Date.now() > deadline) {
      await stopChild(child, 1_000);
      throw new Error(`haproxy did not start (stats page ${statsUrl})`);
    }
    await sleep(100);
  }
  return { child, statsUrl, stop: () => stopChild(child, 5_000).then(() => undefined) };
}

/** Each API server's status on the stats page (`UP`, `DOWN`, `MAINT`…), fallbacks left out. */
export async function serverStates(statsUrl: string): Promise<Record<string, string>> {
  const csv = await (await fetch(`${statsUrl};csv`)).text();
  const rows = csv.split('\n').map((line) => line.split(','));
  const header = rows[0]!.map((name) => name.replace(/^# /, ''));
  const [proxy, server, status] = ['pxname', 'svname', 'status'].map((name) => header.indexOf(name)) as [number, number, number];
  const apis = rows.filter((row) => row[proxy] === 'apis' && /^api-\d+$/.test(row[server] ?? ''));
  return Object.fromEntries(apis.map((row) => [row[server]!, row[status]!]));
}
