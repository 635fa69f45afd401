-- Hardening (issue 10).

-- Refresh-token families (RFC 9700 §4.14): every refresh token of one login shares a family, and
-- a rotated token is marked, so presenting it again is recognised as reuse and ends the family.
ALTER TABLE refresh_tokens
  ADD COLUMN family_id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN rotated_at timestamptz;
CREATE INDEX refresh_tokens_family_id_idx ON refresh_tokens (family_id);

-- The access tokens handed out with each family, so reuse can revoke them at once.
CREATE TABLE refresh_token_family_access_tokens (
  family_id uuid NOT NULL,
  jti text NOT NULL,
  expires_at timestamptz NOT NULL,
  CONSTRAINT refresh_token_family_access_tokens_pkey PRIMARY KEY (family_id, jti)
);
CREATE INDEX refresh_token_family_access_tokens_expires_at_idx ON refresh_token_family_access_tokens (expires_at);

-- Login attempts counted atomically before the password is checked: one row per subject (an
-- (email, address) pair or an email alone) and window start.
CREATE TABLE login_attempts (
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 1,
  CONSTRAINT login_attempts_pkey PRIMARY KEY (subject, window_start)
);
CREATE INDEX login_attempts_window_start_idx ON login_attempts (window_start);
CREATE INDEX login_failures_failed_at_idx ON login_failures (failed_at);

-- Platform-wide webhook endpoints (every event, not only the owner's petitions) are made only by an
-- administrator with a `full` credential. Existing endpoints are not promoted: an administrator
-- who wants every event registers the endpoint again with a full credential.
ALTER TABLE webhook_endpoints ADD COLUMN platform_wide boolean NOT NULL DEFAULT false;
-- Replay requests, counted per endpoint over the last hour (each may queue up to 10,000 deliveries).
CREATE TABLE webhook_replay_requests (
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_replay_requests_endpoint_idx ON webhook_replay_requests (endpoint_id, requested_at);

-- Comment depth (top-level 0), so replies stop nesting at the limit without walking the thread.
ALTER TABLE comments ADD COLUMN depth integer NOT NULL DEFAULT 0;
WITH RECURSIVE tree AS (
  SELECT id, 0 AS depth FROM comments WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, t.depth + 1 FROM comments c JOIN tree t ON c.parent_id = t.id
)
UPDATE comments SET depth = tree.depth FROM tree WHERE comments.id = tree.id AND tree.depth > 0;
