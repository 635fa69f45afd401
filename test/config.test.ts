import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ConfigError, loadConfig, parseDuration } from '../platform/config.ts';
import { PRODUCTION_SECRETS } from './support/production-secrets.ts';

describe('configuration (platform/config.ts)', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).to.equal(3000);
    expect(config.publicUrl).to.equal('http://localhost:3000');
    expect(config.temporal).to.deep.equal({ address: undefined, namespace: 'default', taskQueue: 'rally', tls: undefined, apiKey: undefined });
    expect(config.shutdown).to.deep.equal({ apiReadinessDelayMs: 0, workerGraceMs: 10_000 });
    expect(config.keyGracePeriodMs).to.equal(24 * 3_600_000);
    expect(config.rateLimit).to.deep.equal({ enabled: true, rps: 100, burst: 200, signPerHour: 10 });
    expect(config.trustProxy).to.equal(false);
    // The thresholds that flag, and their hard ceilings at 20 times them (issue 44).
    expect(config.signingThrottle).to.include({ perBlockPerHour: 200, perDomainPerHour: 300, blockCeilingPerHour: 4_000, domainCeilingPerHour: 6_000 });
    expect(config.signingThrottle.openDomains).to.include.members(['gmail.com', 'outlook.com', 'yahoo.com']);
    expect(config.fraudWatch).to.deep.equal({ windowMs: 300_000, baselineMs: 86_400_000, multiple: 5, minSignatures: 50, flaggedShare: 0.2 });
    expect(config.webhooks.hostConcurrency).to.equal(200);
    expect(config.moderation).to.deep.equal({ autohideThreshold: 5, reportsPerHour: 20, minAccountAgeMs: 24 * 3_600_000, brigadeThreshold: 5 });
    expect(config.observability).to.deep.equal({
      metricsToken: undefined,
      workerMetricsPort: undefined,
      otlpEndpoint: undefined,
      otlpProtocol: 'http/protobuf',
      logLevel: 'info',
    });
  });

  it('puts the signing ceilings at 20 times their thresholds unless set, and reads 0 as no ceiling', () => {
    const lowered = loadConfig({ RALLY_SIGN_LIMIT_PER_BLOCK_PER_HOUR: '50', RALLY_SIGN_CEILING_PER_DOMAIN_PER_HOUR: '0' }).signingThrottle;
    expect(lowered).to.include({ perBlockPerHour: 50, blockCeilingPerHour: 1_000, domainCeilingPerHour: 0 });
    expect(() => loadConfig({ RALLY_FRAUD_FLAGGED_SHARE_ALERT: '101' })).to.throw(ConfigError, /RALLY_FRAUD_FLAGGED_SHARE_ALERT/);
  });

  it('reads durations written as 500ms, 10s, 15m, 24h, 30d', () => {
    expect([
      parseDuration('X', '500ms'),
      parseDuration('X', '10s'),
      parseDuration('X', '15m'),
      parseDuration('X', '24h'),
      parseDuration('X', '30d'),
    ]).to.deep.equal([500, 10_000, 900_000, 86_400_000, 2_592_000_000]);
  });

  const malformed: [string, string][] = [
    ['RALLY_KEY_GRACE_PERIOD', '24 hours'],
    ['RALLY_WEBHOOK_TIMEOUT', '0s'],
    ['PORT', '70000'],
    ['RALLY_RATE_LIMIT_RPS', 'many'],
    ['RALLY_TRUST_PROXY', 'yes'],
    ['RALLY_WEBHOOK_HOST_CONCURRENCY', '0'],
    ['DATABASE_URL', 'mysql://localhost/rally'],
    ['TEMPORAL_ADDRESS', 'localhost'],
    ['NODE_ENV', 'staging'],
    ['RALLY_SIGN_LIMIT_OPEN_DOMAINS', 'gmail.com,not a domain'],
    ['RALLY_FRAUD_WATCH_BASELINE', '5m'],
    ['RALLY_WORKER_SHUTDOWN_GRACE', 'forever'],
    ['RALLY_WORKER_CACHED_WORKFLOWS', '0'],
    ['RALLY_API_SHUTDOWN_DELAY', 'soon'],
    ['TEMPORAL_TLS_CERT', '/etc/rally/client.pem'],
    ['LOG_LEVEL', 'verbose'],
    ['RALLY_WORKER_METRICS_PORT', '99999'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['RALLY_REPORT_MIN_ACCOUNT_AGE', '1 day'],
    ['RALLY_REPORT_BRIGADE_THRESHOLD', '0'],
  ];
  for (const [name, value] of malformed) {
    it(`stops start-up naming ${name} when it is "${value}"`, () => {
      expect(() => loadConfig({ [name]: value })).to.throw(ConfigError, name);
    });
  }
});

describe('configuration of Temporal Cloud and shutdown', () => {
  it('reads a client certificate pair, an API key and the namespace for Temporal Cloud', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'rally.a1b2c.tmprl.cloud:7233',
      TEMPORAL_NAMESPACE: 'rally.a1b2c',
      TEMPORAL_TLS_CERT: '/run/secrets/client.pem',
      TEMPORAL_TLS_KEY: '/run/secrets/client.key',
    });
    expect(config.temporal).to.deep.include({ address: 'rally.a1b2c.tmprl.cloud:7233', namespace: 'rally.a1b2c', apiKey: undefined });
    expect(config.temporal.tls).to.deep.equal({ cert: '/run/secrets/client.pem', key: '/run/secrets/client.key', ca: undefined, serverName: undefined });
  });

  it('turns TLS on for an API key alone', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'us-east-1.aws.api.temporal.io:7233', TEMPORAL_API_KEY: 'key' });
    expect(config.temporal.apiKey).to.equal('key');
    expect(config.temporal.tls).to.not.equal(undefined);
  });

  it('reads the shutdown delays, and waits 5 s for load balancers in production by default', () => {
    expect(loadConfig({ RALLY_WORKER_SHUTDOWN_GRACE: '45s', RALLY_API_SHUTDOWN_DELAY: '2s' }).shutdown).to.deep.equal({
      apiReadinessDelayMs: 2_000,
      workerGraceMs: 45_000,
    });
    const production = loadConfig({ NODE_ENV: 'production', RALLY_ENCRYPTION_KEY: 'ab'.repeat(32), RALLY_MEDIA_SIGNING_KEY: 'k', OIDC_CLIENT_SECRET: 's' });
    expect(production.shutdown.apiReadinessDelayMs).to.equal(5_000);
  });

  it("leaves the worker's workflow cache to the SDK unless RALLY_WORKER_CACHED_WORKFLOWS bounds it", () => {
    expect(loadConfig({}).workerCachedWorkflows).to.equal(undefined);
    expect(loadConfig({ RALLY_WORKER_CACHED_WORKFLOWS: '40' }).workerCachedWorkflows).to.equal(40);
  });
});

describe('configuration fails closed', () => {
  it('refuses to start with NODE_ENV unset when PUBLIC_URL is not a loopback address', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'https://petitions.example.org' })).to.throw(ConfigError, 'NODE_ENV');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:8080' }).nodeEnv).to.equal('development');
    expect(loadConfig({ PUBLIC_URL: 'https://petitions.example.org', NODE_ENV: 'development' }).nodeEnv).to.equal('development');
  });

  it('refuses RALLY_WEBHOOK_ALLOW_PRIVATE=true in production', () => {
    const production = {
      NODE_ENV: 'production',
      RALLY_MEDIA_SIGNING_KEY: 'media-key-of-our-own',
      RALLY_ENCRYPTION_KEY: 'ab'.repeat(32),
      OIDC_CLIENT_SECRET: 'client-secret-of-our-own',
    };
    expect(loadConfig(production).webhooks.allowPrivate).to.equal(false);
    expect(() => loadConfig({ ...production, RALLY_WEBHOOK_ALLOW_PRIVATE: 'true' })).to.throw(ConfigError, 'RALLY_WEBHOOK_ALLOW_PRIVATE');
  });

  describe('RALLY_METRICS_TOKEN in production', () => {
    // Empty is unset, as for every variable.
    const production = { ...PRODUCTION_SECRETS, OIDC_CLIENT_SECRET: 'client-secret-of-our-own', RALLY_METRICS_TOKEN: '' };

    it('is required to start the API, and the worker when it serves metrics', () => {
      expect(() => loadConfig(production, 'api')).to.throw(ConfigError, /^RALLY_METRICS_TOKEN must be set in production/);
      expect(() => loadConfig({ ...production, RALLY_WORKER_METRICS_PORT: '9464' }, 'worker')).to.throw(
        ConfigError,
        /^RALLY_METRICS_TOKEN must be set in production/,
      );
      expect(loadConfig({ ...production, RALLY_METRICS_TOKEN: 'a-token' }, 'api').observability.metricsToken).to.equal('a-token');
      expect(loadConfig({ ...production, RALLY_METRICS_TOKEN: 'a-token', RALLY_WORKER_METRICS_PORT: '9464' }, 'worker').observability.metricsToken).to.equal(
        'a-token',
      );
    });

    it('is not asked of a worker without a metrics port, of other processes, or outside production', () => {
      expect(loadConfig(production, 'worker').observability.metricsToken).to.equal(undefined);
      expect(loadConfig(production).nodeEnv).to.equal('production');
      expect(loadConfig({ NODE_ENV: 'development' }, 'api').observability.metricsToken).to.equal(undefined);
    });

    it('stops the API process at start with one line naming the variable and exit code 78', async () => {
      const run = promisify(execFile);
      const failure = await run(process.execPath, ['api/main.ts'], { env: { ...process.env, ...production } }).then(
        () => expect.fail('the API started'),
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure.code).to.equal(78);
      expect(failure.stderr.trim().split('\n')).to.deep.equal([
        'rally: configuration error: RALLY_METRICS_TOKEN must be set in production: the API serves GET /metrics, which would otherwise be open to anyone',
      ]);
    });
  });
});

describe('configuration errors, one per bad variable', () => {
  it('names every bad variable at once, one sentence each', () => {
    const failure = (() => {
      try {
        loadConfig({ PORT: 'x', NODE_ENV: 'staging', RALLY_WEBHOOK_TIMEOUT: 'soon' });
      } catch (error) {
        return error as Error;
      }
      return expect.fail('the configuration was accepted');
    })();
    expect(failure).to.be.instanceOf(ConfigError);
    const named = failure.message.split('\n').map((line) => /^([A-Z_]+) must be /.exec(line)?.[1]);
    expect(named).to.have.members(['NODE_ENV', 'PORT', 'RALLY_WEBHOOK_TIMEOUT']);
  });

  it('stops a process at start with one line per bad variable and exit code 78', async () => {
    const run = promisify(execFile);
    const failure = await run(process.execPath, ['worker/main.ts'], { env: { ...process.env, RALLY_SIGN_BATCH_MAX: '0', LOG_LEVEL: 'loud' } }).then(
      () => expect.fail('the worker started'),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure.code).to.equal(78);
    const lines = failure.stderr.trim().split('\n').sort();
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^rally: configuration error: LOG_LEVEL must be debug, info, warn or error/);
    expect(lines[1]).to.match(/^rally: configuration error: RALLY_SIGN_BATCH_MAX must be a whole number between 1 and 1000/);
  });

  it('never echoes a value that may hold a secret', () => {
    for (const env of [{ DATABASE_URL: 'mysql://rally:hunter2@db/rally' }, { SMTP_URL: 'http://rally:hunter2@mail' }, { RALLY_ENCRYPTION_KEY: 'hunter2' }]) {
      expect(() => loadConfig(env))
        .to.throw(ConfigError, Object.keys(env)[0]!)
        .that.satisfies((error: Error) => !error.message.includes('hunter2'));
    }
  });

  it('reads an empty value as unset, durations and lists included', () => {
    const config = loadConfig({
      RALLY_KEY_GRACE_PERIOD: '',
      RALLY_WEBHOOK_TIMEOUT: '',
      RALLY_API_SHUTDOWN_DELAY: '',
      RALLY_SIGN_LIMIT_OPEN_DOMAINS: '',
      PORT: '',
    });
    expect(config.keyGracePeriodMs).to.equal(24 * 3_600_000);
    expect(config.webhookTimeoutMs).to.equal(10_000);
    expect(config.port).to.equal(3000);
    expect(config.signingThrottle.openDomains).to.include('gmail.com');
  });

  it('refuses the public development encryption key in production, even written out', () => {
    const developmentKey = '52414c4c59'.padEnd(64, '0'); // "RALLY" in hex: the key the repository ships for development
    expect(() => loadConfig({ ...PRODUCTION_SECRETS, OIDC_CLIENT_SECRET: 'client-secret-of-our-own', RALLY_ENCRYPTION_KEY: developmentKey })).to.throw(
      ConfigError,
      'RALLY_ENCRYPTION_KEY',
    );
  });
});
