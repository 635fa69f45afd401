-- Issue 27: a confidential client registered without an owner gets app-only tokens through
-- client_credentials (public reads only): their token family acts for no user.
ALTER TABLE oauth_token_families ALTER COLUMN user_id DROP NOT NULL;

-- An owned client's client_credentials tokens act for its owner only while the owner's authorization
-- stands: the owner sees it under /v1/users/me/authorizations and can revoke it there. Clients
-- registered before get that authorization now, with the scopes they were registered with.
INSERT INTO oauth_authorizations (user_id, client_id, scopes)
SELECT owner_user_id, client_id, scopes FROM oauth_clients WHERE owner_user_id IS NOT NULL
ON CONFLICT (user_id, client_id) DO NOTHING;
