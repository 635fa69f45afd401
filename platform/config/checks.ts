// The rules that involve more than one variable, or the process about to start, checked after the
// schema has accepted each variable on its own. Each named check returns its one-line problem.

import type { ConfigValues } from './schema.ts';
import { DEVELOPMENT_CLIENT_SECRET } from './identity.ts';
import { DEVELOPMENT_MEDIA_SIGNING_KEY } from './media.ts';
import { DEVELOPMENT_ENCRYPTION_KEY } from './webhooks.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** The processes that serve GET /metrics: the API always, the worker when it has a metrics port. */
export type MetricsServer = 'api' | 'worker';

type Check = (values: ConfigValues, env: Env, servesMetrics: MetricsServer | undefined) => string | undefined;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

// Unset NODE_ENV means development, whose secrets are public. That is only safe on the developer's
// own machine: a deployment (any PUBLIC_URL that is not loopback) must say which mode it runs in,
// so forgetting NODE_ENV=production cannot silently start with the development secrets.
const nodeEnvSetOffLoopback: Check = (values, env) => {
  if (env.NODE_ENV || values.PUBLIC_URL === undefined) return undefined;
  const publicHost = new URL(values.PUBLIC_URL).host.replace(/:\d+$/, '');
  if (LOOPBACK_HOSTS.has(publicHost)) return undefined;
  return `NODE_ENV must be set (production, or development/test on purpose) when PUBLIC_URL is not a loopback address (got "${publicHost}")`;
};

// The development defaults are public (they are in this repository), so production must bring its own.
function ownSecretInProduction(name: 'OIDC_CLIENT_SECRET' | 'RALLY_ENCRYPTION_KEY' | 'RALLY_MEDIA_SIGNING_KEY', development: string, problem: string): Check {
  return (values) => (values.NODE_ENV === 'production' && values[name] === development ? `${name} must be set ${problem}` : undefined);
}

const ownClientSecretInProduction = ownSecretInProduction('OIDC_CLIENT_SECRET', DEVELOPMENT_CLIENT_SECRET, 'to a secret of your own in production');
const ownEncryptionKeyInProduction = ownSecretInProduction(
  'RALLY_ENCRYPTION_KEY',
  DEVELOPMENT_ENCRYPTION_KEY,
  'in production (32 random bytes as 64 hex digits or base64)',
);
const ownMediaSigningKeyInProduction = ownSecretInProduction('RALLY_MEDIA_SIGNING_KEY', DEVELOPMENT_MEDIA_SIGNING_KEY, 'to a secret of your own in production');

// Private addresses are for testing receivers on one's own machine; in production they would let
// anyone make Rally call into its own network.
const noPrivateWebhooksInProduction: Check = (values) =>
  values.NODE_ENV === 'production' && values.RALLY_WEBHOOK_ALLOW_PRIVATE ? 'RALLY_WEBHOOK_ALLOW_PRIVATE must not be true in production' : undefined;

// GET /metrics tells whoever asks how busy the service is and whether its database answers, and each
// scrape is work: in production the process serving it must not be open to anyone.
const metricsProtectedInProduction: Check = (values, _env, servesMetrics) => {
  if (values.NODE_ENV !== 'production' || values.RALLY_METRICS_TOKEN !== undefined || servesMetrics === undefined) return undefined;
  if (servesMetrics === 'worker' && values.RALLY_WORKER_METRICS_PORT === undefined) return undefined;
  const who = servesMetrics === 'api' ? 'the API serves' : 'the worker serves (RALLY_WORKER_METRICS_PORT is set)';
  return `RALLY_METRICS_TOKEN must be set in production: ${who} GET /metrics, which would otherwise be open to anyone`;
};

const temporalTlsPair: Check = (values) =>
  Boolean(values.TEMPORAL_TLS_CERT) !== Boolean(values.TEMPORAL_TLS_KEY) ? 'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together' : undefined;

const s3Complete: Check = (values) => {
  if (values.S3_ENDPOINT === undefined) return undefined;
  const missing = (['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => values[name] === undefined);
  return missing.length === 0 ? undefined : `${missing.join(', ')} must be set when S3_ENDPOINT is`;
};

// A baseline of fewer than two windows would compare a window mostly with itself.
const fraudBaselineSpansWindows: Check = (values) =>
  values.RALLY_FRAUD_WATCH_BASELINE < values.RALLY_FRAUD_WATCH_WINDOW * 2
    ? 'RALLY_FRAUD_WATCH_BASELINE must be at least twice RALLY_FRAUD_WATCH_WINDOW'
    : undefined;

export const CHECKS: readonly Check[] = [
  nodeEnvSetOffLoopback,
  ownClientSecretInProduction,
  ownEncryptionKeyInProduction,
  ownMediaSigningKeyInProduction,
  noPrivateWebhooksInProduction,
  metricsProtectedInProduction,
  temporalTlsPair,
  s3Complete,
  fraudBaselineSpansWindows,
];
