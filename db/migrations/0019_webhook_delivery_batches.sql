-- Webhook deliveries go out in batches: the dispatcher claims an endpoint's waiting deliveries into a
-- batch (marking them started) and records the batch here in the same transaction; then it starts
-- the batch's workflow (webhook-batch-<id>) and deletes the row. A row left here means a workflow
-- that may not have been started yet: the next round starts it (an already started one counts as
-- started), so a crash between the two steps loses nothing.
CREATE TABLE webhook_delivery_batches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  delivery_ids uuid[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_delivery_batches_waiting_idx ON webhook_delivery_batches (created_at);
CREATE INDEX webhook_delivery_batches_endpoint_idx ON webhook_delivery_batches (endpoint_id);

-- The batch a delivery's first attempt went out in (its workflow is webhook-batch-<batch_id>).
ALTER TABLE webhook_deliveries ADD COLUMN batch_id uuid;

-- How many first attempts may be in flight to the endpoint at once: grows by one per answer that came
-- back fast, halves after a batch with a failure or a timeout, never above RALLY_WEBHOOK_ENDPOINT_CONCURRENCY.
ALTER TABLE webhook_endpoints ADD COLUMN delivery_window integer NOT NULL DEFAULT 8,
  ADD CONSTRAINT webhook_endpoints_delivery_window_positive CHECK (delivery_window >= 1);
