-- Issue 27: a confidential client registered without an owner gets app-only tokens through
-- client_credentials (public reads only): their token family acts for no user.
ALTER TABLE oauth_token_families ALTER COLUMN user_id DROP NOT NULL;

-- An owned client's client_credentials tokens act for its owner only while the owner's authorization
-- stands: the owner sees it under /v1/users/me/authorizations and can revoke it there. Clients
-- registered before get that authorization now, with the scopes they were registered with. Such a
-- standing authorization was made by the operator, not on the consent screen: only the scopes the user
-- approved there (consented_scopes) let the authorization code flow skip the consent screen.
ALTER TABLE oauth_authorizations ADD COLUMN consented_scopes text[] NOT NULL DEFAULT '{}';
UPDATE oauth_authorizations SET consented_scopes = scopes;
INSERT INTO oauth_authorizations (user_id, client_id, scopes)
SELECT owner_user_id, client_id, scopes FROM oauth_clients WHERE owner_user_id IS NOT NULL
ON CONFLICT (user_id, client_id) DO NOTHING;
