-- Issue 27: developers register and manage their own OAuth apps through /v1/oauth/apps.
-- registered_by is who manages the app (never whom its client_credentials tokens act for: that stays
-- owner_user_id, set only by the operator's CLI). A rotated secret stays valid until
-- previous_secret_expires_at (RALLY_KEY_GRACE_PERIOD); a workflow then erases its hash.
ALTER TABLE oauth_clients
  ADD COLUMN registered_by uuid REFERENCES users (id) ON DELETE CASCADE,
  ADD COLUMN previous_secret_hash bytea,
  ADD COLUMN previous_secret_expires_at timestamptz,
  ADD CONSTRAINT oauth_clients_previous_secret_with_expiry CHECK ((previous_secret_hash IS NULL) = (previous_secret_expires_at IS NULL));
CREATE INDEX oauth_clients_registered_by_idx ON oauth_clients (registered_by, created_at DESC, client_id);
