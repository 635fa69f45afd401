-- The keys that sign OAuth app access tokens are rotated (issue 27, RFC 9700): a new key is published
-- in /oauth/jwks before it signs, from signs_from on; older keys stay published until the tokens
-- they signed have expired. Existing keys have signed since they were made.
ALTER TABLE oauth_signing_keys ADD COLUMN signs_from timestamptz;
UPDATE oauth_signing_keys SET signs_from = created_at;
ALTER TABLE oauth_signing_keys ALTER COLUMN signs_from SET NOT NULL, ALTER COLUMN signs_from SET DEFAULT now();
