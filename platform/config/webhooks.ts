// Webhook delivery and the key that keeps their signing secrets.

import { Type, type StaticDecode } from '@sinclair/typebox';
import type { Config } from './types.ts';
import { aesKey, duration, flag, integer } from './variables.ts';

// Public on purpose, like the other development secrets: it only protects development data.
// Production must set its own (platform/config/checks.ts).
export const DEVELOPMENT_ENCRYPTION_KEY = '52414c4c59'.padEnd(64, '0'); // "RALLY" in hex, zero-padded

export const webhookVariables = {
  RALLY_WEBHOOK_TIMEOUT: duration('RALLY_WEBHOOK_TIMEOUT', { default: '10s', description: 'a delivery attempt fails if no 2xx arrives within this' }),
  RALLY_WEBHOOK_RETRY_INITIAL: duration('RALLY_WEBHOOK_RETRY_INITIAL', {
    default: '30s',
    description: 'first retry delay of a webhook delivery; each later delay doubles',
  }),
  RALLY_WEBHOOK_ALLOW_PRIVATE: flag({
    default: false,
    description:
      '`true` lets webhooks target private and loopback addresses, over plain `http` outside production. For development and tests. ' +
      'Outside production a receiver on this machine (`localhost`, 127.0.0.0/8, ::1) is accepted without it.',
  }),
  // Per endpoint, the ceiling of its adaptive delivery window (nextDeliveryWindow, core/webhooks/delivery-batches.ts).
  RALLY_WEBHOOK_ENDPOINT_CONCURRENCY: integer(1_000, {
    default: 200,
    description:
      "ceiling of a webhook endpoint's adaptive delivery window (first attempts in flight at once), and of " +
      'its unfinished deliveries retries included (1 to 1000)',
  }),
  // Per destination address across every endpoint, from one worker process (core/webhooks/destination-budget.ts):
  // together they get no more than one endpoint's ceiling.
  RALLY_WEBHOOK_HOST_CONCURRENCY: integer(10_000, {
    default: 200,
    description:
      'requests in flight from one worker process to one destination address, across every endpoint that ' +
      'leads there, so Rally cannot be made an amplifier (1 to 10000)',
  }),
  RALLY_WEBHOOK_DEACTIVATE_AFTER: duration('RALLY_WEBHOOK_DEACTIVATE_AFTER', {
    default: '3d',
    description: 'an endpoint that keeps failing for this long is deactivated',
  }),
  RALLY_WEBHOOK_SECRET_GRACE_PERIOD: duration('RALLY_WEBHOOK_SECRET_GRACE_PERIOD', {
    default: '24h',
    description: 'after a signing-secret rotation, the previous secret keeps signing for this long',
  }),
  RALLY_ENCRYPTION_KEY: aesKey({
    default: DEVELOPMENT_ENCRYPTION_KEY,
    defaultText: 'a public development key; **required in production**',
    description: '32 bytes as 64 hex digits or base64. The AES-256-GCM key for webhook signing secrets, which Rally must read back.',
  }),
};

type Values = StaticDecode<ReturnType<typeof Type.Object<typeof webhookVariables>>>;

export function webhookSettings(values: Values) {
  return {
    webhookTimeoutMs: values.RALLY_WEBHOOK_TIMEOUT,
    webhookRetryInitialMs: values.RALLY_WEBHOOK_RETRY_INITIAL,
    webhooks: Object.freeze({
      allowPrivate: values.RALLY_WEBHOOK_ALLOW_PRIVATE,
      endpointConcurrency: values.RALLY_WEBHOOK_ENDPOINT_CONCURRENCY,
      hostConcurrency: values.RALLY_WEBHOOK_HOST_CONCURRENCY,
      deactivateAfterMs: values.RALLY_WEBHOOK_DEACTIVATE_AFTER,
      secretGracePeriodMs: values.RALLY_WEBHOOK_SECRET_GRACE_PERIOD,
    }),
    encryptionKey: values.RALLY_ENCRYPTION_KEY,
  } satisfies Partial<Config>;
}
