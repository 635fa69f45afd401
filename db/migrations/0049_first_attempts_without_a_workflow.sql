-- Issue 45: first attempts leave from the dispatcher, not from a workflow. A claimed batch is now a
-- lease: the dispatcher that claimed it sends it and deletes the row with the outcomes; a row whose
-- lease ran out (its dispatcher died mid-send) is claimed again and sent again under the same delivery
-- ids. Rows left by the workflow path have no lease and are taken at once.
ALTER TABLE webhook_delivery_batches ADD COLUMN lease_until timestamptz;
CREATE INDEX webhook_delivery_batches_lease_idx ON webhook_delivery_batches (lease_until NULLS FIRST);

-- Deliveries whose first attempt failed, waiting for Temporal to accept their retry workflow (id = the
-- delivery id): written with the attempt's outcome, deleted once the workflow is started. While the
-- Temporal server is away they wait here; no personal data, and a row lives seconds unless Temporal is down.
CREATE TABLE webhook_retries_pending (
  delivery_id uuid PRIMARY KEY REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  -- When the second attempt is due (the first retry's backed-off, jittered delay after the first attempt).
  retry_at timestamptz NOT NULL,
  -- The trace of the request that caused the event, so the retry workflow joins it.
  trace_context jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_retries_pending_waiting_idx ON webhook_retries_pending (created_at);
