// The configuration every process receives from loadConfig() (platform/config.ts). Its shape is what
// consumers read; platform/config/*.ts fill it from the environment schema.

import type { LogLevel } from './formats.ts';

export type { LogLevel };

export type Config = Readonly<{
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  publicUrl: string;
  /** Undefined means "use the embedded PostgreSQL under .data/" (only scripts/start.ts resolves it). */
  databaseUrl: string | undefined;
  /** RALLY_DB_POOL_SIZE: connections this process's pool may open; unset, each process's own default (API 20, worker and identity provider 10). */
  databasePoolSize: number | undefined;
  /** RALLY_DB_PREPARED_STATEMENTS: whether statements marked `prepared` (db/sql.ts) reach PostgreSQL by name. */
  databasePreparedStatements: boolean;
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
  /** Workflows the worker keeps in memory between their tasks (RALLY_WORKER_CACHED_WORKFLOWS); undefined: the SDK's default. */
  workerCachedWorkflows: number | undefined;
  /** SIGTERM: how long /health/ready answers 503 before the API stops accepting; how long worker activities may finish. */
  shutdown: Readonly<{ apiReadinessDelayMs: number; workerGraceMs: number }>;
  keyGracePeriodMs: number;
  /** How recent a login must be for deleting one's account (RALLY_SENSITIVE_ACTION_MAX_AGE). */
  sensitiveActionMaxAgeMs: number;
  uploadUrlTtlMs: number;
  responseTokenTtlMs: number;
  /** Validity of an organization invitation (RALLY_INVITATION_TTL). */
  invitationTtlMs: number;
  /** How long notification emails gather before they go out; more than a few in one window become a digest. */
  notificationEmailWindowMs: number;
  /** How long a guest signature waits for the click on its emailed link before it expires (one reminder halfway). */
  signatureConfirmationTtlMs: number;
  /** Confirmation emails guest forms may have sent to one address per day (RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY), beside 10 an hour. */
  guestEmailsPerAddressPerDay: number;
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
   * (IPv6), and per email domain of the signer, except the large open mail providers in `openDomains`:
   * thresholds past which signatures are flagged, and hard ceilings (0: none) past which they are refused.
   */
  signingThrottle: Readonly<{
    perBlockPerHour: number;
    perDomainPerHour: number;
    openDomains: readonly string[];
    blockCeilingPerHour: number;
    domainCeilingPerHour: number;
  }>;
  /**
   * The scheduled fraud watch: signatures per subject per `windowMs` against their average over the
   * `baselineMs` before; a subject reaching `minSignatures` and `multiple` × that average is suspected.
   * A petition whose flagged signatures pass `flaggedShare` (a fraction) of its count is suspected too.
   */
  fraudWatch: Readonly<{ windowMs: number; baselineMs: number; multiple: number; minSignatures: number; flaggedShare: number }>;
  /** Which X-Forwarded-For entries to believe: none, the last `hops` ones, or those added by proxies in `cidrs`. */
  trustProxy: TrustProxy;
  /**
   * Reports: distinct established reporters before a target is hidden pending review; reports per
   * user per hour; how old an account must be for its reports to count; reports against one target
   * from one network block within an hour that alert the administrators and stop counting.
   */
  moderation: Readonly<{ autohideThreshold: number; reportsPerHour: number; minAccountAgeMs: number; brigadeThreshold: number }>;
  /**
   * Data exports' link validity (RALLY_EXPORT_LINK_TTL); how long after closing signers' details are kept (RALLY_SIGNER_DATA_RETENTION,
   * null: off); how long outbox events are kept (RALLY_EVENT_RETENTION).
   */
  personalData: Readonly<{ exportLinkTtlMs: number; signerDataRetentionMs: number | null; eventRetentionMs: number }>;
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
  /** Metrics, traces and logs: see docs/operations/observability.md. */
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
    /** Browser sessions (core/browser-sessions/): ended after this long unused, and this long after login whatever happens. */
    sessionIdleTtlMs: number;
    sessionMaxTtlMs: number;
  }>;
}>;

/** TLS towards Temporal. `cert`/`key`/`ca` hold PEM text or a path to a PEM file, as written in the environment. */
export type TemporalTls = Readonly<{ cert: string | undefined; key: string | undefined; ca: string | undefined; serverName: string | undefined }>;

export type TrustProxy = false | Readonly<{ hops: number }> | Readonly<{ cidrs: readonly string[] }>;

/** Any S3-compatible store, addressed path-style: `{endpoint}/{bucket}/{key}`. */
export type S3Settings = Readonly<{ endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string; publicUrl: string }>;
