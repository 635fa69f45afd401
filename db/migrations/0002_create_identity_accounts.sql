-- The embedded OpenID Connect provider (identity-provider/), used when OIDC_ISSUER is unset.
-- Its accounts hold the only password hashes in Rally; the API's users point at them by subject.
CREATE TABLE identity_accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  password_hash text NOT NULL,
  display_name text,
  email_verified boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT identity_accounts_email_length CHECK (char_length(email) BETWEEN 3 AND 320),
  CONSTRAINT identity_accounts_password_hash_argon2id CHECK (password_hash LIKE '$argon2id$%')
);
-- One account per address whatever its case; lookups use lower(email) so they hit this index.
-- (An expression index instead of citext: no extension, so no superuser needed to migrate.)
CREATE UNIQUE INDEX identity_accounts_email_unique ON identity_accounts (lower(email));

-- oidc-provider's stored artifacts (grants, refresh tokens, ...), one row per model and id, so
-- they survive restarts and every provider process sees the same ones.
CREATE TABLE identity_provider_records (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  CONSTRAINT identity_provider_records_pkey PRIMARY KEY (model, id)
);
CREATE INDEX identity_provider_records_grant_id_idx ON identity_provider_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX identity_provider_records_user_code_idx ON identity_provider_records (model, user_code) WHERE user_code IS NOT NULL;
CREATE INDEX identity_provider_records_uid_idx ON identity_provider_records (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX identity_provider_records_expires_at_idx ON identity_provider_records (expires_at) WHERE expires_at IS NOT NULL;

-- The provider's private signing keys (JWK), generated on first start and kept so that tokens
-- signed before a restart still verify after it. Never logged, never served (the JWKS endpoint
-- publishes only the public halves).
CREATE TABLE identity_signing_keys (
  kid text PRIMARY KEY,
  private_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
