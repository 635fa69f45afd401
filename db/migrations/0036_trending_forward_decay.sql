-- petitions.trending_score in forward-decay form (core/petitions/rankings.ts): ln(score) + days since
-- 2026-01-01, which stays put while the score decays, instead of the score itself, which had to be
-- rewritten as it decayed: at the refresh's 1% tolerance every petition signed in the last week was
-- rewritten about every 14 minutes, with its index entries. It sorts as the scores do, so
-- petitions_listed_trending_idx serves as it is. 0 still means no signature in the last 7 days.
UPDATE petitions SET trending_score = ln(trending_score) + extract(epoch FROM now() - '2026-01-01T00:00:00Z'::timestamptz) / 86400
WHERE trending_score > 0;
