-- The embedded identity provider's signing keys rotate like the app-token keys (0031, issue 42): a
-- new key is published in the provider's JWKS before it signs, from signs_from on; a replaced key
-- stays published until the tokens it signed have expired. Existing keys have signed since they were made.
ALTER TABLE identity_signing_keys ADD COLUMN signs_from timestamptz;
UPDATE identity_signing_keys SET signs_from = created_at;
ALTER TABLE identity_signing_keys ALTER COLUMN signs_from SET NOT NULL, ALTER COLUMN signs_from SET DEFAULT now();
