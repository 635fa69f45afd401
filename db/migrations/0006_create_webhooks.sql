-- Webhook endpoints, their deliveries and every attempt of each delivery.
--
-- An endpoint receives the events it subscribed to for petitions its owner created (an
-- administrator's endpoints receive every event). Signing secrets must be read back to compute the
-- HMAC, so they cannot be hashed: they are stored AES-256-GCM encrypted (iv || tag || ciphertext)
-- under RALLY_ENCRYPTION_KEY. After a rotation the previous secret keeps signing until
-- previous_secret_expires_at.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  secret_ciphertext bytea NOT NULL,
  previous_secret_ciphertext bytea,
  previous_secret_expires_at timestamptz,
  -- First failed attempt since the last success; cleared by any success. Drives auto-deactivation.
  failing_since timestamptz,
  deactivated_at timestamptz,
  deactivation_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT webhook_endpoints_events_count CHECK (cardinality(events) BETWEEN 1 AND 20),
  CONSTRAINT webhook_endpoints_url_length CHECK (char_length(url) <= 2048)
);
-- The owner's list, newest first.
CREATE INDEX webhook_endpoints_user_recent_idx ON webhook_endpoints (user_id, created_at DESC, id DESC);
-- The dispatcher's "who subscribed to this event type" lookup, active endpoints only.
CREATE INDEX webhook_endpoints_active_events_idx ON webhook_endpoints USING gin (events) WHERE is_active;

-- One delivery = one event to one endpoint, sent by one workflow whose id is the delivery id (the
-- X-Rally-Delivery-Id). `cause` tells first dispatch from a redelivery or a replay: only the first
-- dispatch is unique per (endpoint, event), so a re-run dispatcher cannot double it.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES events (id),
  cause text NOT NULL DEFAULT 'event',
  status text NOT NULL DEFAULT 'pending',
  attempt_count integer NOT NULL DEFAULT 0,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set when its workflow was started; NULL rows are the per-endpoint queue the dispatcher drains.
  started_at timestamptz,
  -- Set when it ended delivered or failed; frees the endpoint's concurrency slot.
  finished_at timestamptz,
  CONSTRAINT webhook_deliveries_status_valid CHECK (status IN ('pending', 'retrying', 'delivered', 'failed')),
  CONSTRAINT webhook_deliveries_cause_valid CHECK (cause IN ('event', 'redelivery', 'replay'))
);
CREATE UNIQUE INDEX webhook_deliveries_event_once_idx ON webhook_deliveries (endpoint_id, event_id) WHERE cause = 'event';
-- GET …/deliveries, with and without the status filter.
CREATE INDEX webhook_deliveries_endpoint_recent_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_endpoint_status_idx ON webhook_deliveries (endpoint_id, status, created_at DESC, id DESC);
-- The dispatcher: what is waiting per endpoint, and how many are in flight per endpoint.
CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (endpoint_id, created_at, id) WHERE started_at IS NULL;
CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (endpoint_id) WHERE started_at IS NOT NULL AND finished_at IS NULL;
-- Deleting an event is not expected, but the foreign key must not scan the table when it happens.
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

-- Every attempt: when, what came back, how long it took, and the first bytes of the answer.
CREATE TABLE webhook_delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  error text,
  response_excerpt text,
  CONSTRAINT webhook_delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt)
);
