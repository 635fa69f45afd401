-- Closing the last holes of the abuse review (issue 10).

-- Every portal invitation a petition sent or queued. Removing the decision maker keeps the row, so
-- deleting and re-adding cannot refill a petition's daily budget or mail one address twice a week
-- (core/decision-makers/invitation-budget.ts). Only a hash of the address is kept; rows older than
-- a week are purged hourly with the rate-limit records.
CREATE TABLE decision_maker_invitation_log (
  decision_maker_id uuid PRIMARY KEY,
  petition_id uuid NOT NULL REFERENCES petitions (id) ON DELETE CASCADE,
  creator_id uuid NOT NULL,
  email_hash bytea NOT NULL,
  invited_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX decision_maker_invitation_log_petition_idx ON decision_maker_invitation_log (petition_id, invited_at);
CREATE INDEX decision_maker_invitation_log_creator_idx ON decision_maker_invitation_log (creator_id, invited_at);
CREATE INDEX decision_maker_invitation_log_age_idx ON decision_maker_invitation_log (invited_at);

-- The hourly purge of uploads never confirmed (core/media/abandoned.ts) finds them by age.
CREATE INDEX media_unconfirmed_idx ON media (created_at) WHERE confirmed_at IS NULL;

-- The embedded identity provider stores the tokens its clients hold (refresh tokens, authorization
-- codes, opaque access tokens) under the SHA-256 of their value, without the value in the payload
-- (identity-provider/storage-adapter.ts). Rows stored before are converted here, so no one has to
-- log in again.
UPDATE identity_provider_records
SET id = encode(sha256(convert_to(id, 'UTF8')), 'hex'), payload = payload - 'jti'
WHERE model IN ('AccessToken', 'AuthorizationCode', 'RefreshToken', 'ClientCredentials', 'RegistrationAccessToken', 'InitialAccessToken');

-- Its private signing keys are stored sealed (AES-256-GCM under RALLY_ENCRYPTION_KEY). A key stored
-- in the clear before is sealed by the provider's next start, which needs the key to do it.
ALTER TABLE identity_signing_keys
  ALTER COLUMN private_jwk DROP NOT NULL,
  ADD COLUMN sealed_jwk bytea,
  ADD CONSTRAINT identity_signing_keys_stored CHECK (private_jwk IS NOT NULL OR sealed_jwk IS NOT NULL);

-- The same for the keys Rally's own OAuth authorization server signs app tokens with.
ALTER TABLE oauth_signing_keys
  ALTER COLUMN private_jwk DROP NOT NULL,
  ADD COLUMN sealed_jwk bytea,
  ADD CONSTRAINT oauth_signing_keys_stored CHECK (private_jwk IS NOT NULL OR sealed_jwk IS NOT NULL);
