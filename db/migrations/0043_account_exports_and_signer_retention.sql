-- Issue 46. Account exports: one row per archive a person asked for. The emailed link's token is
-- never stored, only its SHA-256 (token_hash); the link works once (downloaded_at) until
-- link_expires_at. At most one export per person is running at a time (account_exports_one_running).
CREATE TABLE account_exports (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'running',
  storage_key text,
  size_bytes bigint,
  token_hash bytea,
  link_expires_at timestamptz,
  downloaded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  CONSTRAINT account_exports_status_valid CHECK (status IN ('running', 'ready', 'failed'))
);
CREATE UNIQUE INDEX account_exports_one_running ON account_exports (user_id) WHERE status = 'running';
CREATE INDEX account_exports_user_created_idx ON account_exports (user_id, created_at DESC, id DESC);

-- Signer-data retention (RALLY_SIGNER_DATA_RETENTION): a stripped signature keeps its petition, time,
-- country, source and referrer, and no longer says who signed (user_id becomes NULL).
ALTER TABLE signatures ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE petitions ADD COLUMN signer_data_deleted_at timestamptz;
CREATE INDEX petitions_signer_data_due_idx ON petitions (closed_at)
  WHERE signer_data_deleted_at IS NULL AND status IN ('closed', 'victory');
