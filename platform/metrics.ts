// Every Prometheus series Rally exports, named once here (prom-client). Callers record at one seam per outcome (`metrics.signatures.inc({ outcome: 'accepted'
// })`); gauges whose value lives elsewhere (outbox lag, pool, dependencies) are read at scrape time from sources the process registers. The dashboard
// (ops/grafana/rally-dashboard.json) and the alerts (ops/prometheus/alerts.yaml) use these names; docs/operations/runbook.md explains them.
import client from 'prom-client';
import { createBoundedLru } from './bounded-lru.ts';
import { createRequestMetrics } from './request-metrics.ts';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

type GaugeSource = () => Promise<number | undefined> | number | undefined;
type LabelledSource = () => Promise<Record<string, number>> | Record<string, number>;

const sources = new Map<string, GaugeSource>();
const labelledSources = new Map<string, LabelledSource>();

/** Makes a gauge read its value from `source` at each scrape (undefined: leave the series unset). */
export function observeGauge(name: string, source: GaugeSource): void {
  sources.set(name, source);
}

/** Like observeGauge, for a gauge with one label: `source` answers label value → number. */
export function observeLabelledGauge(name: string, source: LabelledSource): void {
  labelledSources.set(name, source);
}

function scrapedGauge(name: string, help: string) {
  return new client.Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const value = await sources.get(name)?.();
      if (value === undefined) this.reset();
      else this.set(value);
    },
  });
}

function labelledGauge<Label extends string>(name: string, help: string, label: Label) {
  return new client.Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      const source = labelledSources.get(name);
      if (!source) return;
      for (const [value, count] of Object.entries(await source())) this.set({ [label]: value } as Record<Label, string>, count);
    },
  });
}

// Latency buckets from 5 ms to 10 s: the API answers in milliseconds, webhooks time out at RALLY_WEBHOOK_TIMEOUT.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  http: createRequestMetrics(registry, { buckets: LATENCY_BUCKETS }),
  signatures: new client.Counter({
    name: 'rally_signatures_total',
    help: 'Sign requests by outcome (accepted or refused) and, for refusals, the problem code.',
    labelNames: ['outcome', 'reason'],
    registers: [registry],
  }),
  signingFlags: new client.Counter({
    name: 'rally_signing_flags_total',
    help: 'Signatures accepted past a signing threshold and flagged for review, by threshold (network_block, email_domain).',
    labelNames: ['threshold'],
  }),
  rateLimitRejections: new client.Counter({
    name: 'rally_rate_limit_rejections_total',
    help:
      'Requests refused with 429 by a rate limit, by limit (general, sign_limit, signing_limit (a hard ceiling per network ' +
      'block or email domain), export_limit, report_limit, login, websocket_per_address).',
    labelNames: ['limit'],
    registers: [registry],
  }),
  passwordChecks: new client.Counter({
    name: 'rally_login_password_checks_total',
    help: 'Login attempts the login throttle let through to the identity provider, which checks the password against its hash.',
    registers: [registry],
  }),
  rateLimitSyncShed: new client.Counter({
    name: 'rally_rate_limit_sync_shed_total',
    help: 'Rate-limit keys whose spends a sync left out, the oldest past the per-sync cap: they limit per process until charged again.',
    registers: [registry],
  }),
  websocketConnections: new client.Gauge({
    name: 'rally_websocket_connections',
    help: 'Open /v1/realtime WebSocket connections.',
    registers: [registry],
  }),
  webhookAttempts: new client.Counter({
    name: 'rally_webhook_delivery_attempts_total',
    help: 'Webhook HTTP attempts by outcome: delivered, retrying (a retry follows) or failed (the last one).',
    labelNames: ['outcome'],
    registers: [registry],
  }),
  webhookAttemptDuration: new client.Histogram({
    name: 'rally_webhook_attempt_duration_seconds',
    help: 'Duration of webhook HTTP attempts, by outcome.',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  webhookDeliveries: new client.Counter({
    name: 'rally_webhook_deliveries_total',
    help: 'Finished webhook deliveries by outcome: delivered or failed.',
    labelNames: ['outcome'],
    registers: [registry],
  }),
  webhookAttemptsPerDelivery: new client.Histogram({
    name: 'rally_webhook_delivery_attempts',
    help: 'Attempts a finished webhook delivery took, by outcome.',
    labelNames: ['outcome'],
    buckets: [1, 2, 3, 4, 5, 6],
    registers: [registry],
  }),
  dispatchFailures: new client.Counter({
    name: 'rally_outbox_dispatch_failures_total',
    help: 'Outbox dispatcher rounds that failed (database or Temporal unreachable); the round is retried.',
    registers: [registry],
  }),
  outboxLag: scrapedGauge('rally_outbox_lag_seconds', 'Age of the oldest outbox event not yet dispatched (0 when none waits).'),
  deliveriesWaiting: scrapedGauge(
    'rally_webhook_deliveries_waiting',
    "Webhook deliveries whose workflow has not started yet (queued behind their endpoint's concurrency).",
  ),
  endpointsFailing: scrapedGauge(
    'rally_webhook_endpoints_failing',
    'Active webhook endpoints whose attempts have failed without a success for more than 15 minutes.',
  ),
  dbPool: labelledGauge(
    'rally_db_pool_connections',
    'PostgreSQL pool connections of this process by state: in_use, idle, waiting (callers queued for a connection), max.',
    'state',
  ),
  dependencyUp: labelledGauge('rally_dependency_up', 'Whether a dependency answered its health check at scrape time (1) or not (0).', 'dependency'),
};

// A collection reads the scrape-time gauges, which ping PostgreSQL and Temporal and count rows: within
// this long of one, scrapes get its answer, so a scrape storm costs one collection a second.
export const SCRAPE_CACHE_MS = 1_000;

/**
 * `produce`, called at most once per SCRAPE_CACHE_MS: callers within that time of a call share its
 * answer, including while it is still being produced. A failure is not kept; the next caller tries again.
 */
export function oncePerScrapeWindow<T extends {}>(produce: () => Promise<T>): () => Promise<T> {
  const answers = createBoundedLru<'answer', Promise<T>>(1, { ttl: SCRAPE_CACHE_MS });
  return () => {
    const cached = answers.get('answer');
    if (cached) return cached;
    const answer = produce();
    answers.set('answer', answer);
    answer.catch(() => {
      if (answers.get('answer') === answer) answers.delete('answer');
    });
    return answer;
  };
}

/** The whole registry in Prometheus text format, and its content type (collected at most once a second). */
export const renderMetrics = oncePerScrapeWindow(async () => ({ body: await registry.metrics(), contentType: registry.contentType }));

/** One webhook HTTP attempt; its outcome `delivered` or `failed` also finishes the delivery. */
export function countWebhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', attempt: number, seconds: number): void {
  metrics.webhookAttempts.inc({ outcome });
  metrics.webhookAttemptDuration.observe({ outcome }, seconds);
  if (outcome === 'retrying') return;
  metrics.webhookDeliveries.inc({ outcome });
  metrics.webhookAttemptsPerDelivery.observe({ outcome }, attempt);
}
