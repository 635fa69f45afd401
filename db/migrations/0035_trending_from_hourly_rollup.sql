-- The trending refresh summed e^(-age / 24 h) over every signature of the last 7 days, once a minute:
-- a full pass over a week of signatures, which on a viral petition is millions of rows a minute (about
-- 15 s of PostgreSQL time per run over the bench's million recent signatures). It now reads the hourly
-- rollup instead, which needs each hour's exact weight, not only its count.
--
-- decay_weight is the sum over the hour's signatures (minus removed ones) of e^((signed_at - hour) / 24 h),
-- each between 1 and e^(1/24). Since e^(-(now - t) / τ) = e^(-(now - hour) / τ) · e^((t - hour) / τ),
-- a petition's score is the sum of decay_weight · e^(-(now - hour) / 24 h) over its hours: exact, with
-- one row per petition and hour instead of one per signature. The fold (core/analytics/fold.ts) adds
-- each batch's weights as it adds its counts; signatures still queued are added by the refresh itself.
ALTER TABLE petition_signatures_hourly ADD COLUMN decay_weight double precision NOT NULL DEFAULT 0;

-- The weights of the signatures already folded within the trending window (the queue's are added by
-- their fold, which a fold running beside this migration may already have done: hence += ).
UPDATE petition_signatures_hourly AS rollup SET decay_weight = rollup.decay_weight + folded.weight
FROM (
  SELECT petition_id, hour, sum(weight) AS weight FROM (
    SELECT petition_id, date_trunc('hour', created_at) AS hour,
           exp(extract(epoch FROM created_at - date_trunc('hour', created_at)) / 86400) AS weight
    FROM signatures WHERE created_at > now() - interval '7 days 1 hour'
    UNION ALL
    SELECT petition_id, date_trunc('hour', signed_at),
           -delta * exp(extract(epoch FROM signed_at - date_trunc('hour', signed_at)) / 86400)
    FROM signature_rollup_queue WHERE signed_at > now() - interval '7 days 1 hour'
  ) AS each_signature
  GROUP BY petition_id, hour
) AS folded
WHERE rollup.petition_id = folded.petition_id AND rollup.hour = folded.hour;

-- The refresh reads the last week's hours of every petition.
CREATE INDEX petition_signatures_hourly_hour_idx ON petition_signatures_hourly (hour);
