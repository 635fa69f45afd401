-- The guest-signature-emails workflow forgets expired guest signatures a month after their deadline,
-- a bounded DELETE every round. Without an index on them that DELETE read the whole table each time
-- (42 ms a round at 100,000 rows in the bench); expired rows by deadline make it an index range.
CREATE INDEX guest_signatures_expired_idx ON guest_signatures (expires_at) WHERE status = 'expired';
