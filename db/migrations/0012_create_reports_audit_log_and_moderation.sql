-- Moderation and trust: reports, the append-only audit log, warnings, user review flags and timed
-- suspensions, and what fraud investigation needs on signatures.

-- Reports by users about a petition, a comment or a user. While open, one reporter reports a
-- target once (the partial unique index); distinct open reporters drive auto-hiding.
CREATE TABLE reports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  reporter_id uuid NOT NULL REFERENCES users (id),
  target_type text NOT NULL,
  target_id uuid NOT NULL,
  reason text NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'open',
  action text,
  resolution_note text,
  resolved_by uuid REFERENCES users (id),
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT reports_target_type_valid CHECK (target_type IN ('petition', 'comment', 'user')),
  CONSTRAINT reports_reason_valid CHECK (reason IN ('spam', 'harassment', 'hate_speech', 'misinformation', 'other')),
  CONSTRAINT reports_status_valid CHECK (status IN ('open', 'resolved', 'dismissed')),
  CONSTRAINT reports_description_length CHECK (description IS NULL OR char_length(description) <= 1000)
);
CREATE UNIQUE INDEX reports_one_open_per_reporter ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_target_open_idx ON reports (target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_status_recent_idx ON reports (status, created_at DESC, id DESC);
CREATE INDEX reports_recent_idx ON reports (created_at DESC, id DESC);
CREATE INDEX reports_target_type_recent_idx ON reports (target_type, created_at DESC, id DESC);

-- Every admin action and security-relevant event. Append-only: the trigger below refuses UPDATE,
-- DELETE and TRUNCATE for every role, the API's included.
CREATE TABLE audit_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  actor_type text NOT NULL,
  actor_id uuid,
  -- How the actor authenticated: `access_token:<jti>`, `api_key:<key id>`, `cli` or `system`.
  credential text NOT NULL,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  before jsonb,
  after jsonb,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT audit_logs_actor_type_valid CHECK (actor_type IN ('user', 'api_key', 'system', 'cli'))
);
CREATE INDEX audit_logs_recent_idx ON audit_logs (created_at DESC, id DESC);
CREATE INDEX audit_logs_actor_recent_idx ON audit_logs (actor_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_action_recent_idx ON audit_logs (action, created_at DESC, id DESC);
CREATE INDEX audit_logs_target_type_recent_idx ON audit_logs (target_type, created_at DESC, id DESC);

CREATE FUNCTION audit_logs_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_logs is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_logs_append_only BEFORE UPDATE OR DELETE ON audit_logs FOR EACH ROW EXECUTE FUNCTION audit_logs_refuse_change();
CREATE TRIGGER audit_logs_no_truncate BEFORE TRUNCATE ON audit_logs FOR EACH STATEMENT EXECUTE FUNCTION audit_logs_refuse_change();

-- Warnings an administrator sent a user (each is also a notification and an email).
CREATE TABLE user_warnings (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  issued_by uuid NOT NULL REFERENCES users (id),
  reason text NOT NULL,
  message text NOT NULL,
  -- Set once the email went out, so a retried delivery never sends it twice.
  emailed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT user_warnings_reason_length CHECK (char_length(reason) BETWEEN 1 AND 200),
  CONSTRAINT user_warnings_message_length CHECK (char_length(message) BETWEEN 1 AND 5000)
);
CREATE INDEX user_warnings_recent_idx ON user_warnings (created_at DESC, id DESC);
CREATE INDEX user_warnings_user_recent_idx ON user_warnings (user_id, created_at DESC, id DESC);

ALTER TABLE users
  ADD COLUMN suspension_reason text,
  ADD COLUMN suspended_until timestamptz,
  -- Set when reports reached the threshold: the user stays active but waits for a reviewer.
  ADD COLUMN flagged_for_review_at timestamptz;
CREATE INDEX users_role_idx ON users (role) WHERE role = 'admin';
CREATE INDEX users_email_prefix_idx ON users (lower(email) text_pattern_ops);

-- The normalised email key of a signature (lower-case; for Gmail, dots and +tags removed; elsewhere
-- +tags removed), for deduplication and per-domain investigation.
CREATE FUNCTION rally_email_key(email text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN domain IN ('gmail.com', 'googlemail.com') THEN replace(split_part(local_part, '+', 1), '.', '') || '@gmail.com'
    ELSE split_part(local_part, '+', 1) || '@' || domain
  END
  FROM (SELECT lower(regexp_replace(email, '@[^@]*$', '')) AS local_part, lower(substring(email from '@([^@]*)$')) AS domain) AS parts
$$;

-- Signatures never keep an IP address: `network_hash` is a keyed hash (HMAC-SHA-256) of the
-- signer's /24 (IPv4) or /64 (IPv6) network, enough to find a block of fraudulent signatures and
-- too coarse and keyed to identify anyone.
ALTER TABLE signatures ADD COLUMN email_key text, ADD COLUMN network_hash bytea;

-- Signatures invalidated by a fraud investigation: moved here whole, so they are kept for audit but
-- neither counted nor listed anywhere.
CREATE TABLE signature_invalidations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  petition_id uuid NOT NULL REFERENCES petitions (id),
  filter jsonb NOT NULL,
  dry_run boolean NOT NULL,
  status text NOT NULL DEFAULT 'running',
  matched bigint NOT NULL DEFAULT 0,
  requested_by uuid NOT NULL REFERENCES users (id),
  signature_count_after bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CONSTRAINT signature_invalidations_status_valid CHECK (status IN ('running', 'completed', 'failed'))
);
CREATE INDEX signature_invalidations_petition_idx ON signature_invalidations (petition_id, created_at DESC);

CREATE TABLE invalidated_signatures (
  id uuid PRIMARY KEY,
  invalidation_id uuid NOT NULL REFERENCES signature_invalidations (id),
  petition_id uuid NOT NULL REFERENCES petitions (id),
  user_id uuid NOT NULL REFERENCES users (id),
  comment text,
  is_anonymous boolean NOT NULL,
  display_location text,
  city text,
  region text,
  country text,
  latitude double precision,
  longitude double precision,
  referrer_id uuid,
  email_key text,
  network_hash bytea,
  created_at timestamptz NOT NULL,
  invalidated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invalidated_signatures_invalidation_idx ON invalidated_signatures (invalidation_id);
CREATE INDEX invalidated_signatures_petition_idx ON invalidated_signatures (petition_id, created_at);

-- GET /v1/admin/metrics: deliveries that failed in the last day.
CREATE INDEX webhook_deliveries_failed_recent_idx ON webhook_deliveries (finished_at) WHERE status = 'failed';
