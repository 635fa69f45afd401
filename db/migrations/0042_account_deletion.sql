-- Deleting an account (issue 46). Signatures stay counted but no longer name their signer, so their
-- user_id may be empty (NULLs never clash in signatures_one_per_user); the same for the signatures an
-- invalidation set aside. Everything else a deleted person made that stays (petitions, comments,
-- updates) is reassigned to one shared placeholder user, "a former member", who cannot log in.
ALTER TABLE signatures ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE invalidated_signatures ALTER COLUMN user_id DROP NOT NULL;
-- A report stays for moderation without its reporter (one shared placeholder would clash in
-- reports_one_open_per_reporter when two deleted people reported the same thing).
ALTER TABLE reports ALTER COLUMN reporter_id DROP NOT NULL;

-- The deletion workflow finds what a person referred and reported by these, in keyset batches.
CREATE INDEX signatures_referrer_user_idx ON signatures (referrer_id, id) WHERE referrer_id IS NOT NULL;
CREATE INDEX comments_user_idx ON comments (user_id, id);
CREATE INDEX reports_reporter_idx ON reports (reporter_id, id);

-- core/users/former-member.ts names this id; its issuer matches no identity provider, so no token is ever its.
INSERT INTO users (id, identity_issuer, identity_subject, email, display_name, slug, role, email_verified)
SELECT '00000000-0000-4000-8000-00000000dead', 'rally:former-member', 'former-member', 'former-member@rally.invalid',
  'a former member',
  CASE WHEN EXISTS (SELECT FROM users WHERE slug = 'former-member') THEN 'former-member-' || substr(md5(random()::text), 1, 8) ELSE 'former-member' END,
  'user', false
ON CONFLICT (id) DO NOTHING;
