-- Browser sessions (issue 26): people log in on Rally's pages through the identity provider's
-- authorization-code flow; Rally then keeps a server-side session behind an opaque cookie. Only the
-- SHA-256 of the cookie's random value is stored, so the table gives nobody a working cookie.
CREATE TABLE browser_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash bytea NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  -- Fixed at login (RALLY_SESSION_MAX_TTL); the idle limit is counted from last_seen_at.
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  CONSTRAINT browser_sessions_token_hash_unique UNIQUE (token_hash)
);
-- "Log out everywhere", suspension and a password change end every live session of one user.
CREATE INDEX browser_sessions_user_live_idx ON browser_sessions (user_id) WHERE ended_at IS NULL;
CREATE INDEX browser_sessions_expires_idx ON browser_sessions (expires_at);
CREATE INDEX browser_sessions_ended_idx ON browser_sessions (ended_at) WHERE ended_at IS NOT NULL;

-- A login on its way through the identity provider: the PKCE verifier, state and nonce of one
-- authorization request, found again by the hash of a short-lived cookie of the same browser (so a
-- callback carried to another browser logs nobody in), and used once.
CREATE TABLE browser_login_attempts (
  binding_hash bytea PRIMARY KEY,
  state text NOT NULL,
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  return_to text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX browser_login_attempts_expires_idx ON browser_login_attempts (expires_at);

-- The embedded provider's email-address checks: a link with a random token (stored as its SHA-256)
-- that marks the account's address verified. An unverified account can log in but cannot sign.
CREATE TABLE identity_email_verifications (
  token_hash bytea PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES identity_accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX identity_email_verifications_account_idx ON identity_email_verifications (account_id, created_at);
