// The one place that reads the environment. Every process (API, worker, CLI, scripts) calls
// loadConfig() once at start-up and passes the result down; nothing else touches process.env.
// A malformed value stops start-up with a ConfigError naming the variable. Values are never logged.

import { isIP } from 'node:net';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Config = Readonly<{
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  publicUrl: string;
  /** Undefined means "use the embedded PostgreSQL under .data/" (only scripts/start.ts resolves it). */
  databaseUrl: string | undefined;
  /** RALLY_DB_POOL_SIZE: connections this process's pool may open; unset, each process's own default (API 20, worker and identity provider 10). */
  databasePoolSize: number | undefined;
  /** A direct (session) connection for LISTEN when DATABASE_URL goes through a transaction pooler. */
  databaseListenUrl: string | undefined;
  dataDir: string;
  temporal: Readonly<{
    /** Undefined means "start a dev server" (only scripts/start.ts and the test runner resolve it). */
    address: string | undefined;
    namespace: string;
    taskQueue: string;
    /** Temporal Cloud or a self-hosted cluster with TLS: client certificate pair, API key, CA (each a PEM or a file path). */
    tls: TemporalTls | undefined;
    apiKey: string | undefined;
  }>;
  /** Overrides of temporal.yaml's dev server for `npm start` (ports and state file); undefined: as the file says. */
  temporalDevServer: Readonly<{ port: number | undefined; uiPort: number | undefined; dbFile: string | undefined }>;
  /** A workflow bundle prepared ahead (`npm run build:workflows`); undefined: bundle at worker start. */
  workflowBundlePath: string | undefined;
  /** SIGTERM: how long /health/ready answers 503 before the API stops accepting; how long worker activities may finish. */
  shutdown: Readonly<{ apiReadinessDelayMs: number; workerGraceMs: number }>;
  keyGracePeriodMs: number;
  uploadUrlTtlMs: number;
  responseTokenTtlMs: number;
  /** Validity of an organization invitation (RALLY_INVITATION_TTL). */
  invitationTtlMs: number;
  /** How long notification emails gather before they go out; more than a few in one window become a digest. */
  notificationEmailWindowMs: number;
  webhookTimeoutMs: number;
  webhookRetryInitialMs: number;
  /** Delivery guard rails: private addresses, per-endpoint concurrency, auto-deactivation, secret rotation overlap. */
  webhooks: Readonly<{ allowPrivate: boolean; endpointConcurrency: number; hostConcurrency: number; deactivateAfterMs: number; secretGracePeriodMs: number }>;
  /** 32 bytes as 64 hex digits: the AES-256-GCM key for secrets Rally must read back (webhook signing secrets). */
  encryptionKey: string;
  /** Uploaded images: a local folder or S3, the size limit, and the key that signs local upload URLs. */
  media: Readonly<{ dir: string; maxBytes: number; signingKey: string; s3: S3Settings | undefined }>;
  /** Outgoing email: through SMTP_URL, or written as .eml files under `dir` when it is unset. */
  mail: Readonly<{ smtpUrl: string | undefined; dir: string; from: string }>;
  rateLimit: Readonly<{ enabled: boolean; rps: number; burst: number; signPerHour: number }>;
  /**
   * The signing throttle beyond the per-address limit: signatures per hour per /24 (IPv4) or /64
   * (IPv6), and per email domain of the signer, except the large open mail providers in `openDomains`.
   */
  signingThrottle: Readonly<{ perBlockPerHour: number; perDomainPerHour: number; openDomains: readonly string[] }>;
  /**
   * The scheduled fraud watch: signatures per subject per `windowMs` against their average over the
   * `baselineMs` before; a subject reaching `minSignatures` and `multiple` × that average is suspected.
   */
  fraudWatch: Readonly<{ windowMs: number; baselineMs: number; multiple: number; minSignatures: number }>;
  /** Which X-Forwarded-For entries to believe: none, the last `hops` ones, or those added by proxies in `cidrs`. */
  trustProxy: TrustProxy;
  /**
   * Reports: distinct established reporters before a target is hidden pending review; reports per
   * user per hour; how old an account must be for its reports to count; reports against one target
   * from one network block within an hour that alert the administrators and stop counting.
   */
  moderation: Readonly<{ autohideThreshold: number; reportsPerHour: number; minAccountAgeMs: number; brigadeThreshold: number }>;
  bodyLimitBytes: number;
  /** Open /v1/realtime connections per client address. */
  realtimeMaxPerAddress: number;
  idempotencyTtlMs: number;
  /** reCAPTCHA checking of signatures: only when a secret is set. */
  recaptcha: Readonly<{ secret: string | undefined; verifyUrl: string }>;
  /** Group commit of signatures: how long the first request of a batch waits for others, and the largest batch. */
  signBatch: Readonly<{ windowMs: number; maxSize: number }>;
  /** After `count` failed logins for one email within `windowMs`, further attempts answer 429. */
  loginFailureLimit: Readonly<{ count: number; windowMs: number }>;
  /** Search and analytics: the search time limit (503 beyond it) and how often page views are written. */
  search: Readonly<{ timeoutMs: number; pageViewFlushMs: number }>;
  /** Metrics, traces and logs: see README "Observability". */
  observability: Readonly<{
    /** RALLY_METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`; production requires it where /metrics is served. */
    metricsToken: string | undefined;
    /** RALLY_WORKER_METRICS_PORT: the worker's /metrics port; undefined means the worker serves none. */
    workerMetricsPort: number | undefined;
    /** OTEL_EXPORTER_OTLP_ENDPOINT: traces go there over OTLP/HTTP; undefined means no tracing at all. */
    otlpEndpoint: string | undefined;
    otlpProtocol: 'http/protobuf' | 'http/json';
    logLevel: LogLevel;
  }>;
  identity: Readonly<{
    /** Undefined means "run the embedded provider" (identity-provider/ on 127.0.0.1:embeddedPort). */
    issuer: string | undefined;
    clientId: string;
    clientSecret: string;
    embeddedPort: number;
    accessTokenTtlMs: number;
    refreshTokenTtlMs: number;
  }>;
}>;

/** TLS towards Temporal. `cert`/`key`/`ca` hold PEM text or a path to a PEM file, as written in the environment. */
export type TemporalTls = Readonly<{ cert: string | undefined; key: string | undefined; ca: string | undefined; serverName: string | undefined }>;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type TrustProxy = false | Readonly<{ hops: number }> | Readonly<{ cidrs: readonly string[] }>;

/** Any S3-compatible store, addressed path-style: `{endpoint}/{bucket}/{key}`. */
export type S3Settings = Readonly<{ endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; publicUrl: string }>;

type Env = Readonly<Record<string, string | undefined>>;

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `500ms`, `10s`, `15m`, `24h`, `30d` into milliseconds. */
export function parseDuration(name: string, raw: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!match) {
    throw new ConfigError(`${name} must be a duration such as 500ms, 10s, 15m, 24h or 30d (got "${raw}")`);
  }
  const value = Number(match[1]) * DURATION_UNITS_MS[match[2] as string]!;
  if (value <= 0) throw new ConfigError(`${name} must be longer than zero`);
  return value;
}

function duration(env: Env, name: string, fallback: string): number {
  return parseDuration(name, env[name] ?? fallback);
}

function positiveInteger(env: Env, name: string, fallback: number, max = 1_000_000_000): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number between 1 and ${max} (got "${raw}")`);
  }
  return Number(raw);
}

// Mail providers anyone can get an address at: a domain limit on them would throttle the public.
const OPEN_MAIL_DOMAINS = 'gmail.com,googlemail.com,outlook.com,hotmail.com,live.com,msn.com,yahoo.com,icloud.com,me.com,aol.com,' +
  'proton.me,protonmail.com,gmx.de,gmx.net,web.de,mail.ru,yandex.ru,qq.com,163.com';

/** A comma-separated list of lower-case domain names. */
function domainList(env: Env, name: string, fallback: string): string[] {
  const raw = env[name] ?? fallback;
  const domains = raw.split(',').map((domain) => domain.trim().toLowerCase()).filter((domain) => domain !== '');
  const bad = domains.find((domain) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain));
  if (bad !== undefined) throw new ConfigError(`${name} must be a comma-separated list of domain names (got "${bad}")`);
  return domains;
}

function fraudWatchSettings(env: Env): Config['fraudWatch'] {
  const windowMs = duration(env, 'RALLY_FRAUD_WATCH_WINDOW', '5m');
  const baselineMs = duration(env, 'RALLY_FRAUD_WATCH_BASELINE', '24h');
  if (baselineMs < windowMs * 2) throw new ConfigError('RALLY_FRAUD_WATCH_BASELINE must be at least twice RALLY_FRAUD_WATCH_WINDOW');
  return Object.freeze({
    windowMs,
    baselineMs,
    multiple: positiveInteger(env, 'RALLY_FRAUD_WATCH_MULTIPLE', 5, 1_000),
    minSignatures: positiveInteger(env, 'RALLY_FRAUD_WATCH_MIN_SIGNATURES', 50),
  });
}

function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const raw = env[name] || fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use one of ${protocols.join(', ')}`);
  }
  return raw.replace(/\/+$/, '');
}

function hostPort(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[A-Za-z0-9.\-\[\]:]+:\d{1,5}$/.test(raw)) {
    throw new ConfigError(`${name} must be host:port (got "${raw}")`);
  }
  return raw;
}

// TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY come as a pair (mTLS, e.g. Temporal Cloud); TEMPORAL_API_KEY
// or TEMPORAL_TLS=true alone also turn TLS on, with the system's CAs unless TEMPORAL_TLS_CA is set.
function temporalTls(env: Env): TemporalTls | undefined {
  const [cert, key, ca, serverName] = ['TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CA', 'TEMPORAL_TLS_SERVER_NAME'].map((name) => env[name] || undefined);
  if (Boolean(cert) !== Boolean(key)) throw new ConfigError('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together');
  if (!cert && !ca && !serverName && !env.TEMPORAL_API_KEY && !flag(env, 'TEMPORAL_TLS')) return undefined;
  return Object.freeze({ cert, key, ca, serverName });
}

// A duration that may be zero ("0s"): for delays that are off by default.
function delay(env: Env, name: string, fallback: string): number {
  const raw = env[name] ?? fallback;
  return /^0+(ms|s|m|h|d)?$/.test(raw.trim()) ? 0 : parseDuration(name, raw);
}

// RALLY_TRUST_PROXY: false (default), a number of proxy hops in front of Rally (`true` means one),
// or a comma-separated list of the proxies' addresses or CIDR ranges.
function trustProxy(env: Env): TrustProxy {
  const raw = (env.RALLY_TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true') return Object.freeze({ hops: 1 });
  if (/^\d+$/.test(raw)) {
    if (Number(raw) > 100) throw new ConfigError(`RALLY_TRUST_PROXY must be at most 100 hops (got "${raw}")`);
    return Object.freeze({ hops: Number(raw) });
  }
  const cidrs = raw.split(',').map((entry) => entry.trim());
  for (const cidr of cidrs) {
    const [address = '', prefix, ...rest] = cidr.split('/');
    const family = isIP(address);
    const maxPrefix = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= maxPrefix))) {
      throw new ConfigError(`RALLY_TRUST_PROXY must be false, a number of hops, or a list of addresses/CIDR ranges (got "${cidr}")`);
    }
  }
  return Object.freeze({ cidrs: Object.freeze(cidrs) });
}

// Issuer identifiers are compared character for character (a trailing slash matters), so the value
// is checked as a URL but kept as written.
function issuerUrl(env: Env, name: string): string | undefined {
  return url(env, name, undefined, ['http:', 'https:']) === undefined ? undefined : env[name];
}

// Public on purpose: it only lets a development API talk to its own embedded provider.
const DEVELOPMENT_CLIENT_SECRET = 'rally-development-client-secret';

function clientSecret(env: Env, mode: Config['nodeEnv']): string {
  const raw = env.OIDC_CLIENT_SECRET || DEVELOPMENT_CLIENT_SECRET;
  if (mode === 'production' && raw === DEVELOPMENT_CLIENT_SECRET) {
    throw new ConfigError('OIDC_CLIENT_SECRET must be set to a secret of your own in production');
  }
  return raw;
}

function countPerWindow(env: Env, name: string, fallback: string): { count: number; windowMs: number } {
  const raw = env[name] || fallback;
  const match = /^(\d+)\/(\S+)$/.exec(raw);
  if (!match || Number(match[1]) < 1) throw new ConfigError(`${name} must look like 10/15m (got "${raw}")`);
  return { count: Number(match[1]), windowMs: parseDuration(name, match[2]!) };
}

// Public on purpose, like the client secret above: production must set its own.
const DEVELOPMENT_MEDIA_SIGNING_KEY = 'rally-development-media-signing-key';

function mediaSettings(env: Env, mode: Config['nodeEnv']): Config['media'] {
  const signingKey = env.RALLY_MEDIA_SIGNING_KEY || DEVELOPMENT_MEDIA_SIGNING_KEY;
  if (mode === 'production' && signingKey === DEVELOPMENT_MEDIA_SIGNING_KEY) {
    throw new ConfigError('RALLY_MEDIA_SIGNING_KEY must be set to a secret of your own in production');
  }
  let s3: S3Settings | undefined;
  const endpoint = url(env, 'S3_ENDPOINT', undefined, ['http:', 'https:']);
  if (endpoint) {
    const [bucket, accessKeyId, secretAccessKey] = ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'].map((name) => {
      if (!env[name]) throw new ConfigError(`${name} must be set when S3_ENDPOINT is`);
      return env[name];
    }) as [string, string, string];
    const publicUrl = url(env, 'S3_PUBLIC_URL', `${endpoint}/${bucket}`, ['http:', 'https:'])!;
    s3 = Object.freeze({ endpoint, bucket, region: env.S3_REGION || 'us-east-1', accessKeyId, secretAccessKey, publicUrl });
  }
  return Object.freeze({
    dir: env.RALLY_MEDIA_DIR || `${env.RALLY_DATA_DIR || '.data'}/media`,
    maxBytes: positiveInteger(env, 'RALLY_MEDIA_MAX_BYTES', 10 * 1024 * 1024),
    signingKey,
    s3,
  });
}

function mailSettings(env: Env, publicUrl: string): Config['mail'] {
  return Object.freeze({
    smtpUrl: url(env, 'SMTP_URL', undefined, ['smtp:', 'smtps:']),
    dir: env.RALLY_MAIL_DIR || `${env.RALLY_DATA_DIR || '.data'}/mail`,
    from: env.RALLY_MAIL_FROM || `Rally <no-reply@${new URL(publicUrl).hostname}>`,
  });
}

function webhookSettings(env: Env, mode: Config['nodeEnv']): Config['webhooks'] {
  const allowPrivate = flag(env, 'RALLY_WEBHOOK_ALLOW_PRIVATE');
  // Private addresses are for testing receivers on one's own machine; in production they would let
  // anyone make Rally call into its own network.
  if (allowPrivate && mode === 'production') throw new ConfigError('RALLY_WEBHOOK_ALLOW_PRIVATE must not be true in production');
  return Object.freeze({
    allowPrivate,
    // Per endpoint, the ceiling of its adaptive delivery window (nextDeliveryWindow, core/webhooks/delivery-batches.ts): first
    // attempts and retries in flight at once, however large its backlog.
    endpointConcurrency: positiveInteger(env, 'RALLY_WEBHOOK_ENDPOINT_CONCURRENCY', 200, 1_000),
    // Per destination address, across every endpoint, requests in flight from one worker process, so
    // many endpoints aimed at one victim cannot turn Rally into an amplifier (core/webhooks/destination-budget.ts):
    // together they get no more than one endpoint's ceiling.
    hostConcurrency: positiveInteger(env, 'RALLY_WEBHOOK_HOST_CONCURRENCY', 200, 10_000),
    deactivateAfterMs: duration(env, 'RALLY_WEBHOOK_DEACTIVATE_AFTER', '3d'),
    secretGracePeriodMs: duration(env, 'RALLY_WEBHOOK_SECRET_GRACE_PERIOD', '24h'),
  });
}

// Public on purpose, like the secrets above: it only protects development data. Production must set its own.
const DEVELOPMENT_ENCRYPTION_KEY = '52414c4c59'.padEnd(64, '0'); // "RALLY" in hex, zero-padded

function encryptionKey(env: Env, mode: Config['nodeEnv']): string {
  const raw = env.RALLY_ENCRYPTION_KEY;
  if (!raw) {
    if (mode === 'production') throw new ConfigError('RALLY_ENCRYPTION_KEY must be set in production (32 random bytes as 64 hex digits or base64)');
    return DEVELOPMENT_ENCRYPTION_KEY;
  }
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (bytes.length !== 32) throw new ConfigError('RALLY_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64');
  return bytes.toString('hex');
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

// Unset NODE_ENV means development, whose secrets are public. That is only safe on the developer's
// own machine: a deployment (any PUBLIC_URL that is not loopback) must say which mode it runs in,
// so forgetting NODE_ENV=production cannot silently start with the development secrets.
function nodeEnv(env: Env): Config['nodeEnv'] {
  const raw = env.NODE_ENV || undefined;
  if (raw === undefined) {
    const publicHost = env.PUBLIC_URL ? URL.parse(env.PUBLIC_URL)?.host.replace(/:\d+$/, '') : 'localhost';
    if (publicHost && !LOOPBACK_HOSTS.has(publicHost)) {
      throw new ConfigError(`NODE_ENV must be set (production, or development/test on purpose) when PUBLIC_URL is not a loopback address (got "${publicHost}")`);
    }
    return 'development';
  }
  if (raw === 'development' || raw === 'test' || raw === 'production') return raw;
  throw new ConfigError(`NODE_ENV must be development, test or production (got "${raw}")`);
}

function observabilitySettings(env: Env): Config['observability'] {
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (got "${protocol}")`);
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be debug, info, warn or error (got "${env.LOG_LEVEL}")`);
  return Object.freeze({
    metricsToken: env.RALLY_METRICS_TOKEN || undefined,
    workerMetricsPort: env.RALLY_WORKER_METRICS_PORT ? positiveInteger(env, 'RALLY_WORKER_METRICS_PORT', 0, 65_535) : undefined,
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', undefined, ['http:', 'https:']),
    otlpProtocol: protocol,
    logLevel: logLevel as LogLevel,
  });
}

/** The processes that serve GET /metrics: the API always, the worker when it has a metrics port. */
export type MetricsServer = 'api' | 'worker';

// GET /metrics tells whoever asks how busy the service is and whether its database answers, and each
// scrape is work: in production the process serving it must not be open to anyone.
function assertMetricsProtected(config: Config, servesMetrics: MetricsServer | undefined): void {
  if (config.nodeEnv !== 'production' || config.observability.metricsToken !== undefined || servesMetrics === undefined) return;
  if (servesMetrics === 'worker' && config.observability.workerMetricsPort === undefined) return;
  const who = servesMetrics === 'api' ? 'the API serves' : 'the worker serves (RALLY_WORKER_METRICS_PORT is set)';
  throw new ConfigError(`RALLY_METRICS_TOKEN must be set in production: ${who} GET /metrics, which would otherwise be open to anyone`);
}

/** `servesMetrics`: the process about to serve GET /metrics, whose production start needs RALLY_METRICS_TOKEN. */
export function loadConfig(env: Env = process.env, servesMetrics?: MetricsServer): Config {
  const config = readConfig(env);
  assertMetricsProtected(config, servesMetrics);
  return config;
}

function readConfig(env: Env): Config {
  const port = positiveInteger(env, 'PORT', 3000, 65_535);
  const mode = nodeEnv(env);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:'])!;
  return Object.freeze({
    nodeEnv: mode,
    port,
    publicUrl,
    databaseUrl: url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    databaseListenUrl: url(env, 'DATABASE_LISTEN_URL', undefined, ['postgres:', 'postgresql:']),
    databasePoolSize: env.RALLY_DB_POOL_SIZE ? positiveInteger(env, 'RALLY_DB_POOL_SIZE', 10, 1_000) : undefined,
    dataDir: env.RALLY_DATA_DIR || '.data',
    temporal: Object.freeze({
      address: hostPort(env, 'TEMPORAL_ADDRESS'),
      namespace: env.TEMPORAL_NAMESPACE || 'default',
      taskQueue: env.RALLY_TASK_QUEUE || 'rally',
      tls: temporalTls(env),
      apiKey: env.TEMPORAL_API_KEY || undefined,
    }),
    temporalDevServer: Object.freeze({
      port: env.RALLY_TEMPORAL_DEV_PORT ? positiveInteger(env, 'RALLY_TEMPORAL_DEV_PORT', 7233, 65_535) : undefined,
      uiPort: env.RALLY_TEMPORAL_UI_PORT ? positiveInteger(env, 'RALLY_TEMPORAL_UI_PORT', 8233, 65_535) : undefined,
      dbFile: env.RALLY_TEMPORAL_DB_FILE || undefined,
    }),
    // Production starts from the prepared bundle when there is one; development bundles the code it has.
    workflowBundlePath: env.RALLY_WORKFLOW_BUNDLE || (mode === 'production' ? 'dist/workflow-bundle.js' : undefined),
    shutdown: Object.freeze({
      // Behind a load balancer, readiness must fail for a few probe intervals before connections close.
      apiReadinessDelayMs: delay(env, 'RALLY_API_SHUTDOWN_DELAY', mode === 'production' ? '5s' : '0s'),
      workerGraceMs: duration(env, 'RALLY_WORKER_SHUTDOWN_GRACE', '10s'),
    }),
    keyGracePeriodMs: duration(env, 'RALLY_KEY_GRACE_PERIOD', '24h'),
    uploadUrlTtlMs: duration(env, 'RALLY_UPLOAD_URL_TTL', '15m'),
    responseTokenTtlMs: duration(env, 'RALLY_RESPONSE_TOKEN_TTL', '30d'),
    invitationTtlMs: duration(env, 'RALLY_INVITATION_TTL', '7d'),
    notificationEmailWindowMs: duration(env, 'RALLY_NOTIFICATION_EMAIL_WINDOW', '5m'),
    webhookTimeoutMs: duration(env, 'RALLY_WEBHOOK_TIMEOUT', '10s'),
    webhookRetryInitialMs: duration(env, 'RALLY_WEBHOOK_RETRY_INITIAL', '30s'),
    webhooks: webhookSettings(env, mode),
    encryptionKey: encryptionKey(env, mode),
    media: mediaSettings(env, mode),
    mail: mailSettings(env, publicUrl),
    rateLimit: Object.freeze({
      // Off only for benchmarks that measure the limiter's own cost.
      enabled: env.RALLY_RATE_LIMIT_ENABLED === undefined ? true : flag(env, 'RALLY_RATE_LIMIT_ENABLED'),
      rps: positiveInteger(env, 'RALLY_RATE_LIMIT_RPS', 100),
      burst: positiveInteger(env, 'RALLY_RATE_LIMIT_BURST', 200),
      signPerHour: positiveInteger(env, 'RALLY_SIGN_LIMIT_PER_HOUR', 10),
    }),
    signingThrottle: Object.freeze({
      perBlockPerHour: positiveInteger(env, 'RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR', 200),
      perDomainPerHour: positiveInteger(env, 'RALLY_SIGN_LIMIT_PER_DOMAIN_PER_HOUR', 300),
      openDomains: Object.freeze(domainList(env, 'RALLY_SIGN_LIMIT_OPEN_DOMAINS', OPEN_MAIL_DOMAINS)),
    }),
    fraudWatch: fraudWatchSettings(env),
    trustProxy: trustProxy(env),
    moderation: Object.freeze({
      autohideThreshold: positiveInteger(env, 'RALLY_REPORT_AUTOHIDE_THRESHOLD', 5, 1_000),
      reportsPerHour: positiveInteger(env, 'RALLY_REPORT_LIMIT_PER_HOUR', 20),
      minAccountAgeMs: duration(env, 'RALLY_REPORT_MIN_ACCOUNT_AGE', '24h'),
      brigadeThreshold: positiveInteger(env, 'RALLY_REPORT_BRIGADE_THRESHOLD', 5, 1_000),
    }),
    bodyLimitBytes: 1024 * 1024,
    realtimeMaxPerAddress: positiveInteger(env, 'RALLY_WS_MAX_PER_ADDRESS', 50, 100_000),
    idempotencyTtlMs: 24 * 3_600_000,
    signBatch: Object.freeze({ windowMs: duration(env, 'RALLY_SIGN_BATCH_WINDOW', '2ms'), maxSize: positiveInteger(env, 'RALLY_SIGN_BATCH_MAX', 100, 1_000) }),
    recaptcha: Object.freeze({
      secret: env.RECAPTCHA_SECRET || undefined,
      verifyUrl: url(env, 'RECAPTCHA_VERIFY_URL', 'https://www.google.com/recaptcha/api/siteverify', ['http:', 'https:'])!,
    }),
    loginFailureLimit: Object.freeze(countPerWindow(env, 'RALLY_LOGIN_FAILURE_LIMIT', '10/15m')),
    search: Object.freeze({ timeoutMs: duration(env, 'RALLY_SEARCH_TIMEOUT', '2s'), pageViewFlushMs: duration(env, 'RALLY_PAGE_VIEW_FLUSH_INTERVAL', '10s') }),
    observability: observabilitySettings(env),
    identity: Object.freeze({
      issuer: issuerUrl(env, 'OIDC_ISSUER'),
      clientId: env.OIDC_CLIENT_ID || 'rally-api',
      clientSecret: clientSecret(env, mode),
      embeddedPort: positiveInteger(env, 'RALLY_IDP_PORT', 3001, 65_535),
      accessTokenTtlMs: duration(env, 'RALLY_ACCESS_TOKEN_TTL', '15m'),
      refreshTokenTtlMs: duration(env, 'RALLY_REFRESH_TOKEN_TTL', '30d'),
    }),
  });
}

/** Loads the configuration or exits with a one-line message naming the bad variable. */
export function loadConfigOrExit(env: Env = process.env, servesMetrics?: MetricsServer): Config {
  try {
    return loadConfig(env, servesMetrics);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`rally: configuration error: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/** The issuer of the embedded identity provider (identity-provider/), used when OIDC_ISSUER is unset. */
export function embeddedIssuer(config: Config): string {
  return `http://127.0.0.1:${config.identity.embeddedPort}`;
}
