-- OAuth 2.0 apps (RFC 6749 + PKCE): registered clients, what each user granted them, one-time
-- authorization codes, and token families (one per code exchange or client_credentials grant) so a
-- replayed code or refresh token, or a revoked grant, can take every token of the family down at once.

-- Client secrets carry 32 random bytes: a plain SHA-256 is enough and is all that is kept.
CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  name text NOT NULL,
  redirect_uris text[] NOT NULL,
  scopes text[] NOT NULL,
  confidential boolean NOT NULL,
  secret_hash bytea,
  -- client_credentials tokens act for this user; without one that grant is refused.
  owner_user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oauth_clients_name_length CHECK (char_length(name) BETWEEN 1 AND 100),
  CONSTRAINT oauth_clients_redirect_uris_present CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  CONSTRAINT oauth_clients_secret_iff_confidential CHECK ((secret_hash IS NOT NULL) = confidential)
);
CREATE INDEX oauth_clients_created_at_idx ON oauth_clients (created_at DESC, client_id);
CREATE INDEX oauth_clients_owner_user_id_idx ON oauth_clients (owner_user_id);

-- What a user approved for a client: a later request for the same scopes skips the consent screen.
CREATE TABLE oauth_authorizations (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, client_id)
);
CREATE INDEX oauth_authorizations_client_id_idx ON oauth_authorizations (client_id);
CREATE INDEX oauth_authorizations_user_id_updated_at_idx ON oauth_authorizations (user_id, updated_at DESC, client_id);

CREATE TABLE oauth_token_families (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX oauth_token_families_user_client_idx ON oauth_token_families (user_id, client_id);
CREATE INDEX oauth_token_families_client_id_idx ON oauth_token_families (client_id);

CREATE TABLE oauth_authorization_codes (
  code_hash bytea PRIMARY KEY,
  -- The consent ticket that produced the code: one approval yields one code.
  ticket_id text NOT NULL,
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  scopes text[] NOT NULL,
  code_challenge text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  -- Set at exchange: a second use revokes this family.
  family_id uuid REFERENCES oauth_token_families (id) ON DELETE CASCADE,
  CONSTRAINT oauth_authorization_codes_ticket_unique UNIQUE (ticket_id)
);
CREATE INDEX oauth_authorization_codes_expires_at_idx ON oauth_authorization_codes (expires_at);
CREATE INDEX oauth_authorization_codes_family_id_idx ON oauth_authorization_codes (family_id);

CREATE TABLE oauth_refresh_tokens (
  token_hash bytea PRIMARY KEY,
  family_id uuid NOT NULL REFERENCES oauth_token_families (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  -- Set when rotated: presenting it again is a replay and revokes the family.
  used_at timestamptz
);
CREATE INDEX oauth_refresh_tokens_family_id_idx ON oauth_refresh_tokens (family_id);
CREATE INDEX oauth_refresh_tokens_expires_at_idx ON oauth_refresh_tokens (expires_at);

-- Access tokens are JWTs checked without the database; their ids are kept so revoking a family can
-- put every live one on the revocation list (revoked_access_tokens).
CREATE TABLE oauth_access_tokens (
  jti text PRIMARY KEY,
  family_id uuid NOT NULL REFERENCES oauth_token_families (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_access_tokens_family_id_idx ON oauth_access_tokens (family_id);
CREATE INDEX oauth_access_tokens_expires_at_idx ON oauth_access_tokens (expires_at);

-- Rally's own signing key for app tokens and consent tickets (the API is the authorization server).
CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  private_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE events DROP CONSTRAINT events_actor_type_valid;
ALTER TABLE events ADD CONSTRAINT events_actor_type_valid CHECK (actor_type IN ('user', 'api_key', 'system', 'decision_maker', 'oauth_app'));
