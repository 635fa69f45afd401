-- Third-party apps are now served by oidc-provider (api/oauth/server/), like the identity provider:
-- its codes, grants, refresh tokens, sessions and interactions live in a table of the same shape as
-- identity_provider_records (db/oidc-provider-storage.ts). Rally keeps what is its own: the apps
-- (oauth_clients), what each user consented to (oauth_authorizations), the signing keys and the
-- revocation list.
CREATE TABLE oauth_server_records (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_server_records_grant_id_idx ON oauth_server_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_server_records_uid_idx ON oauth_server_records (model, uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_server_records_expires_at_idx ON oauth_server_records (expires_at) WHERE expires_at IS NOT NULL;
-- Taking back a user's authorization of an app ends every grant of that pair (core/oauth/user-authorizations.ts).
CREATE INDEX oauth_server_records_grant_owner_idx ON oauth_server_records ((payload ->> 'accountId'), (payload ->> 'clientId'))
  WHERE model = 'Grant';

-- Each authorization has an id of its own: tokens an owner's app gets by client_credentials name it,
-- and taking the authorization back puts it on the revocation list (a new authorization gets a new id).
ALTER TABLE oauth_authorizations ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE oauth_authorizations ADD CONSTRAINT oauth_authorizations_id_key UNIQUE (id);

-- The hand-written server's own records. Their tokens stop working with this release: an app sends
-- its user through /oauth/authorize again, which answers at once where the user had consented
-- (oauth_authorizations is kept), so nobody sees the consent screen twice.
DROP TABLE oauth_access_tokens;
DROP TABLE oauth_refresh_tokens;
DROP TABLE oauth_authorization_codes;
DROP TABLE oauth_token_families;
