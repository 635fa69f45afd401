// Shapes of webhook endpoints and deliveries on the wire.
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../core/events/record-event.ts';
import { CursorQuery, LimitQuery, PaginationSchema } from '../http/pagination.ts';
import type { AttemptRow, DeliveryRow, EndpointRow } from '../../core/webhooks/queries.ts';

const Meta = Type.Object({ request_id: Type.String(), timestamp: Type.String({ format: 'date-time' }) });
const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const EventName = Type.Union(
  EVENT_TYPES.map((name) => Type.Literal(name)),
  {
    description:
      'An event of the Events table. payment.completed is emitted when an operator upgrades an ' +
      "organization's tier (rally orgs set-tier); its data names the organization and both tiers.",
  },
);
const Events = Type.Array(EventName, { minItems: 1, maxItems: 20, uniqueItems: true });
const Url = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: 'https. Outside production, also http to this machine (localhost, 127.0.0.0/8, ::1), and to private addresses with RALLY_WEBHOOK_ALLOW_PRIVATE.',
});

export const WebhookCreate = Type.Object({ url: Url, events: Events }, { additionalProperties: false });
export const WebhookUpdate = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), is_active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export const ReplayRequest = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Re-send every subscribed event that occurred at or after this time.' }) },
  { additionalProperties: false },
);

export const WebhookEndpoint = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  created_at: DateTime,
  updated_at: DateTime,
  deactivated_at: Type.Union([DateTime, Type.Null()], {
    description: 'Set when Rally switched the endpoint off after failing for RALLY_WEBHOOK_DEACTIVATE_AFTER.',
  }),
  deactivation_reason: Type.Union([Type.String(), Type.Null()]),
  previous_secret_expires_at: Type.Union([DateTime, Type.Null()], {
    description: 'Until then, deliveries also carry X-Rally-Signature-Previous, signed with the previous secret.',
  }),
  platform_wide: Type.Boolean({
    description: 'Receives every platform event: made by an administrator with a full credential. Otherwise only events of your own petitions.',
  }),
});
const WithSecret = Type.Composite([WebhookEndpoint, Type.Object({ secret: Type.String({ description: 'The signing secret. Shown once; store it now.' }) })]);

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('retrying'), Type.Literal('delivered'), Type.Literal('failed')]);
export const Attempt = Type.Object({
  attempt: Type.Integer(),
  attempted_at: DateTime,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first 512 bytes of the answer.' }),
});
export const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The X-Rally-Delivery-Id it is sent with.' }),
  webhook_id: Type.String({ format: 'uuid' }),
  event_id: Type.String({ format: 'uuid' }),
  event_type: Type.String(),
  cause: Type.Union([Type.Literal('event'), Type.Literal('redelivery'), Type.Literal('replay'), Type.Literal('ping')], {
    description: 'event: its first delivery; redelivery and replay: sent again on request; ping: a test (on creation and POST /v1/webhooks/{id}/test).',
  }),
  status: DeliveryStatus,
  attempt_count: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  finished_at: NullableDateTime,
  retry_workflow_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'The Temporal workflow that owns its retries (attempts 2 to 6), named by the delivery id: find it in the Temporal Web UI by this id. ' +
      'Null while none was needed: a first attempt that succeeded, or failed for good, went out without one.',
  }),
});
const DeliveryWithAttempts = Type.Composite([Delivery, Type.Object({ attempts: Type.Array(Attempt) })]);

export const WebhookEnvelope = Type.Object({ data: WebhookEndpoint, meta: Meta });
export const WebhookWithSecretEnvelope = Type.Object({ data: WithSecret, meta: Meta });
export const WebhookList = Type.Object({ data: Type.Array(WebhookEndpoint), pagination: PaginationSchema, meta: Meta });
export const DeliveryEnvelope = Type.Object({ data: DeliveryWithAttempts, meta: Meta });
export const DeliveryList = Type.Object({ data: Type.Array(Delivery), pagination: PaginationSchema, meta: Meta });
export const ReplayEnvelope = Type.Object({
  data: Type.Object({
    replayed: Type.Integer({ description: 'Deliveries queued.' }),
    next_since: Type.Union([DateTime, Type.Null()], { description: 'Set when more events remain: call again with this as since.' }),
  }),
  meta: Meta,
});

export const WebhookParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }), delivery_id: Type.String({ format: 'uuid' }) });
export const WebhookListQuery = Type.Object({ cursor: Type.Optional(CursorQuery), limit: LimitQuery() }, { additionalProperties: false });
export const DeliveryListQuery = Type.Object(
  { status: Type.Optional(DeliveryStatus), cursor: Type.Optional(CursorQuery), limit: LimitQuery() },
  { additionalProperties: false },
);

export function toWebhookEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    is_active: row.is_active,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deactivated_at: row.deactivated_at,
    deactivation_reason: row.deactivation_reason,
    previous_secret_expires_at:
      row.previous_secret_expires_at && Date.parse(row.previous_secret_expires_at) > Date.now() ? row.previous_secret_expires_at : null,
    platform_wide: row.platform_wide,
  };
}

export function toDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    cause: row.cause,
    status: row.status,
    attempt_count: row.attempt_count,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at,
    finished_at: row.finished_at,
    retry_workflow_id: row.status === 'retrying' || row.attempt_count > 1 ? row.id : null,
  };
}

export const toAttempt = (row: AttemptRow) => ({ ...row });
