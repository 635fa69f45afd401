// What the delivery workflow does on the outside: one HTTP attempt of one delivery per activity run. Temporal's activity retries are the delivery's retries;
// the last allowed attempt, and failures no retry can fix, throw non-retryable failures with a type the workflow can tell apart.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { FAILURE_TYPES } from '../core/vocabulary.ts';
import type { DatabasePool } from 'slonik';
import type { Dispatcher } from 'undici';
import type { Config } from '../platform/config.ts';
import { countWebhookAttempt } from '../platform/metrics.ts';
import { createLogger } from '../platform/logger.ts';
import { endpointHost } from '../core/workflow-summaries.ts';
import { createSecretBox, signPayload, signPayloadV2, type SecretBox } from '../core/webhooks/signing-secrets.ts';
import { createWebhookAgent, postWebhook, type AttemptReport } from './webhook-http.ts';
import { createDestinationBudget, type DestinationBudget } from '../core/webhooks/destination-budget.ts';
import { finishDeliveryFailed, loadDeliveryContext, recordAttempt, type DeliveryContext } from '../core/webhooks/delivery-attempts.ts';

export type WebhookActivityDependencies = {
  db: DatabasePool;
  http: Dispatcher;
  secrets: SecretBox;
  allowPrivate: boolean;
  /** Outside production, a receiver on this machine (url-guard.ts). */
  allowLoopback: boolean;
  deactivateAfterMs: number;
  destinations: DestinationBudget;
  /** The ceiling of an endpoint's delivery window (RALLY_WEBHOOK_ENDPOINT_CONCURRENCY). */
  endpointConcurrency: number;
};

export function webhookDependencies(db: DatabasePool, config: Config): WebhookActivityDependencies {
  const { allowPrivate, deactivateAfterMs, hostConcurrency, endpointConcurrency } = config.webhooks;
  return {
    db,
    http: createWebhookAgent({ allowPrivate, allowLoopback: config.nodeEnv !== 'production' }),
    secrets: createSecretBox(config.encryptionKey),
    allowPrivate,
    allowLoopback: config.nodeEnv !== 'production',
    deactivateAfterMs,
    destinations: createDestinationBudget(hostConcurrency),
    endpointConcurrency,
  };
}

/** `priorAttempts`: attempts already made for this delivery (its first one, by a batch) before this workflow. */
export type AttemptInput = { deliveryId: string; timeoutMs: number; retryInitialMs: number; maxAttempts: number; priorAttempts?: number };
export type AttemptOutcome = 'delivered' | 'gone';

/** Failure types, for the workflow and for anyone reading a history. */
export const WEBHOOK_FAILURES = {
  attemptFailed: FAILURE_TYPES.webhookAttemptFailed,
  deliveryFailed: FAILURE_TYPES.webhookDeliveryFailed,
  endpointInactive: FAILURE_TYPES.webhookEndpointInactive,
  addressRefused: FAILURE_TYPES.webhookAddressRefused,
} as const;

const JITTER = 0.2;
// Each line also names its workflow, run, activity and attempt (worker/observability.ts).
const log = createLogger('webhooks');

// A failed attempt throws a retryable ApplicationFailure whose nextRetryDelay is RALLY_WEBHOOK_RETRY_INITIAL
// doubled per attempt, with ±20% jitter so a burst of failures does not come back in lockstep.
export function retryDelayMs(retryInitialMs: number, attempt: number): number {
  const base = retryInitialMs * 2 ** (attempt - 1);
  return Math.round(base * (1 - JITTER + Math.random() * 2 * JITTER));
}

/** The exact bytes sent and signed: the payload of conventions.md, with the event id as `id`. */
export function webhookBody(context: DeliveryContext): string {
  return JSON.stringify({
    id: context.event_id,
    type: context.type,
    created_at: context.occurred_at,
    triggered_by: { type: context.actor_type, id: context.actor_id },
    data: context.data,
  });
}

function signedHeaders(context: DeliveryContext, body: string, secrets: SecretBox): Record<string, string> {
  // Each sealed secret is opened once per attempt (AES-GCM), then signs both header schemes.
  const current = secrets.open(context.secret_ciphertext);
  const previous = context.previous_secret_ciphertext ? secrets.open(context.previous_secret_ciphertext) : undefined;
  const headers: Record<string, string> = {
    'x-rally-signature': signPayload(current, body),
    'x-rally-event': context.type,
    'x-rally-delivery-id': context.id,
    'x-rally-timestamp': context.occurred_at,
  };
  // During a rotation's grace window a receiver still holding the old secret verifies this one.
  if (previous !== undefined) headers['x-rally-signature-previous'] = signPayload(previous, body);
  // Signed at each attempt, so a retry carries a fresh time within the receivers' tolerance.
  headers['x-rally-signature-v2'] = signPayloadV2(previous === undefined ? [current] : [current, previous], body, Math.floor(Date.now() / 1000));
  return headers;
}

/** No slot of the destination freed in time (destination-budget.ts): a failed attempt, as if the receiver were slow. */
function busyAsReport(destinations: DestinationBudget, outcome: AttemptReport | 'busy'): AttemptReport {
  if (outcome !== 'busy') return outcome;
  return {
    statusCode: null,
    latencyMs: 0,
    error: `${destinations.perDestination} deliveries were already in flight to this destination`,
    excerpt: null,
    refused: false,
  };
}

/**
 * THE send path of one attempt, for the batches and the retries alike: the payload, signed at this
 * moment, posted to the endpoint. It reports what happened and never throws for the receiver's sake.
 */
export async function sendAttempt(deps: WebhookActivityDependencies, context: DeliveryContext, timeoutMs: number): Promise<AttemptReport> {
  const body = webhookBody(context);
  // Within the destination's budget across endpoints (core/webhooks/destination-budget.ts).
  // The receiver gets what is left of RALLY_WEBHOOK_TIMEOUT after any wait for a slot; a timeout is
  // reported against the whole setting, which is what the endpoint's owner configured against.
  const outcome = await deps.destinations.withSlot(context.url, timeoutMs, (remainingMs) =>
    postWebhook(deps.http, {
      url: context.url,
      body,
      headers: signedHeaders(context, body, deps.secrets),
      timeoutMs: remainingMs,
      allowedMs: timeoutMs,
      allowPrivate: deps.allowPrivate,
      allowLoopback: deps.allowLoopback,
    }),
  );
  return busyAsReport(deps.destinations, outcome);
}

/** What an attempt means for its delivery: the last allowed attempt and refused addresses are final. */
export function outcomeOf(report: AttemptReport, attempt: number, maxAttempts: number): 'delivered' | 'retrying' | 'failed' {
  if (report.error === null) return 'delivered';
  return report.refused || attempt >= maxAttempts ? 'failed' : 'retrying';
}

/** An attempt as operators see it: counted in the metrics and logged (a final failure as a warning). */
export function observeAttempt(seen: {
  deliveryId: string;
  endpointId: string;
  url: string;
  attempt: number;
  outcome: 'delivered' | 'retrying' | 'failed';
  report: AttemptReport;
}): void {
  const { report, outcome } = seen;
  countWebhookAttempt(outcome, seen.attempt, report.latencyMs / 1000);
  (outcome === 'failed' ? log.warn : log.debug)('webhook attempt', {
    // `attempt` in the line is the activity's own (from the log context); the delivery counts its attempts over its whole life.
    delivery_id: seen.deliveryId,
    delivery_attempt: seen.attempt,
    endpoint_id: seen.endpointId,
    host: endpointHost(seen.url),
    outcome,
    status_code: report.statusCode,
    latency_ms: report.latencyMs,
    error: report.error,
  });
}

export function createWebhookActivities(deps: WebhookActivityDependencies) {
  const { db } = deps;
  return {
    async attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      const context = await loadDeliveryContext(db, input.deliveryId);
      // The endpoint was deleted with its deliveries: nothing is left to send or to record.
      if (!context) return 'gone';
      // An earlier run got through but its completion was lost (worker killed): do not send twice.
      if (context.status === 'delivered') return 'delivered';
      if (context.status === 'failed') throw ApplicationFailure.nonRetryable('the delivery already failed', WEBHOOK_FAILURES.deliveryFailed);
      if (!context.is_active) {
        await finishDeliveryFailed(db, input.deliveryId, 'the endpoint was deactivated');
        throw ApplicationFailure.nonRetryable('the endpoint is deactivated', WEBHOOK_FAILURES.endpointInactive);
      }
      // Counted over the delivery's life: a retry workflow after a batch's first attempt starts at 2.
      const attempt = Context.current().info.attempt + (input.priorAttempts ?? 0);
      const attemptedAt = new Date().toISOString();
      const report = await sendAttempt(deps, context, input.timeoutMs);
      const outcome = outcomeOf(report, attempt, input.maxAttempts);
      const delivered = outcome === 'delivered';
      const final = outcome !== 'retrying';
      await recordAttempt(
        db,
        {
          deliveryId: input.deliveryId,
          endpointId: context.endpoint_id,
          attempt,
          attemptedAt,
          outcome,
          statusCode: report.statusCode,
          latencyMs: report.latencyMs,
          error: report.error,
          excerpt: report.excerpt,
        },
        deps.deactivateAfterMs,
      );
      observeAttempt({ deliveryId: input.deliveryId, endpointId: context.endpoint_id, url: context.url, attempt, outcome, report });
      if (delivered) return 'delivered';
      if (report.refused) throw ApplicationFailure.nonRetryable(report.error ?? 'address refused', WEBHOOK_FAILURES.addressRefused);
      if (final) throw ApplicationFailure.nonRetryable(`attempt ${attempt} of ${input.maxAttempts} failed: ${report.error}`, WEBHOOK_FAILURES.deliveryFailed);
      throw ApplicationFailure.create({
        message: `attempt ${attempt} failed: ${report.error}`,
        type: WEBHOOK_FAILURES.attemptFailed,
        nextRetryDelay: retryDelayMs(input.retryInitialMs, attempt),
      });
    },

    /** After the workflow gave up for another reason (retries used up by crashes or timeouts). */
    async markDeliveryFailed({ deliveryId, reason }: { deliveryId: string; reason: string }): Promise<void> {
      await finishDeliveryFailed(db, deliveryId, reason);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
