-- Rally's users. Passwords live in the identity provider, never here: a user is linked to the
-- provider's account by (issuer, subject).
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  identity_issuer text NOT NULL,
  identity_subject text NOT NULL,
  email text NOT NULL,
  display_name text NOT NULL,
  slug text NOT NULL,
  bio text,
  avatar_url text,
  role text NOT NULL DEFAULT 'user',
  suspended_at timestamptz,
  email_verified boolean NOT NULL DEFAULT false,
  phone_verified boolean NOT NULL DEFAULT false,
  notification_prefs jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Kept by the petitions code when a petition is created or deleted, so profiles need no COUNT.
  petition_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_identity_unique UNIQUE (identity_issuer, identity_subject),
  CONSTRAINT users_slug_unique UNIQUE (slug),
  CONSTRAINT users_role_valid CHECK (role IN ('user', 'admin')),
  CONSTRAINT users_display_name_length CHECK (char_length(display_name) BETWEEN 1 AND 100),
  CONSTRAINT users_bio_length CHECK (bio IS NULL OR char_length(bio) <= 500)
);
CREATE INDEX users_email_idx ON users (lower(email));

-- API keys: only a SHA-256 of the whole key is kept (the key carries 32 random bytes, so a plain
-- hash cannot be brute-forced) plus a short prefix to show in lists.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  scope text NOT NULL,
  environment text NOT NULL,
  display_prefix text NOT NULL,
  secret_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  -- Set when the key is rotated: the end of its grace window.
  expires_at timestamptz,
  revoked_at timestamptz,
  replaced_by uuid REFERENCES api_keys (id),
  CONSTRAINT api_keys_secret_hash_unique UNIQUE (secret_hash),
  CONSTRAINT api_keys_scope_valid CHECK (scope IN ('read', 'read_write', 'full')),
  CONSTRAINT api_keys_environment_valid CHECK (environment IN ('live', 'test')),
  CONSTRAINT api_keys_name_length CHECK (char_length(name) BETWEEN 1 AND 100)
);
CREATE INDEX api_keys_user_id_created_at_idx ON api_keys (user_id, created_at DESC, id DESC);

-- Refresh tokens Rally handed out, by hash, so an expired one can be told apart (token_expired)
-- from an unknown or revoked one.
CREATE TABLE refresh_tokens (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_expires_at_idx ON refresh_tokens (expires_at);

-- Revoked access tokens by JWT id, until they would have expired anyway. Every API process keeps
-- the live ones in memory and hears new ones through NOTIFY rally_token_revoked.
CREATE TABLE revoked_access_tokens (
  jti text PRIMARY KEY,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX revoked_access_tokens_expires_at_idx ON revoked_access_tokens (expires_at);

-- Failed logins, for slowing down and then refusing guessing (per email and per client IP).
CREATE TABLE login_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subject text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_subject_failed_at_idx ON login_failures (subject, failed_at);

-- Shared token buckets for rate limits across API processes. UNLOGGED: losing them in a crash only
-- refills everyone's bucket, and they are written often.
CREATE UNLOGGED TABLE rate_limit_buckets (
  bucket_key text PRIMARY KEY,
  tokens double precision NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
