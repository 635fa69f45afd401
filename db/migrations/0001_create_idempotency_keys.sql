-- Stored first responses for POST requests carrying an Idempotency-Key (kept 24 hours).
-- A row is claimed (response_status NULL) before the handler runs, so two concurrent requests
-- with one key never both execute: the second sees the claim and answers 409.
CREATE TABLE idempotency_keys (
  caller_key text NOT NULL,
  idempotency_key text NOT NULL,
  request_method text NOT NULL,
  request_path text NOT NULL,
  request_fingerprint text NOT NULL,
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller_key, idempotency_key)
);

-- The purge workflow deletes by expiry.
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
