-- Issue 14: a petition's countries, cities and traffic sources per UTC day, so that analytics can
-- answer them for a date range. The fold (core/analytics/fold.ts) adds to it beside the all-time
-- petition_signature_breakdown, which stays the cheap answer when a range covers the whole petition.
CREATE TABLE petition_signature_breakdown_daily (
  petition_id uuid NOT NULL,
  day date NOT NULL,
  dimension text NOT NULL,
  value text NOT NULL,
  context text NOT NULL DEFAULT '',
  signatures integer NOT NULL,
  CONSTRAINT petition_signature_breakdown_daily_pkey PRIMARY KEY (petition_id, dimension, day, value, context),
  CONSTRAINT petition_signature_breakdown_daily_dimension_valid CHECK (dimension IN ('country', 'city', 'source'))
);

-- Backfill: what the fold has already counted, i.e. the signatures minus the changes still queued
-- (the fold adds those itself later), so every signature ends up counted once per dimension.
INSERT INTO petition_signature_breakdown_daily (petition_id, day, dimension, value, context, signatures)
SELECT rows.petition_id, rows.day, d.dimension, d.value, d.context, sum(rows.n)::integer
FROM (
  SELECT s.petition_id, (s.created_at AT TIME ZONE 'UTC')::date AS day, s.country, s.city,
    COALESCE(s.source, 'share:' || u.slug, 'direct') AS source, 1 AS n
  FROM signatures s LEFT JOIN users u ON u.id = s.referrer_id
  UNION ALL
  SELECT q.petition_id, (q.signed_at AT TIME ZONE 'UTC')::date, q.country, q.city,
    COALESCE(q.source, 'share:' || u.slug, 'direct'), -q.delta
  FROM signature_rollup_queue q LEFT JOIN users u ON u.id = q.referrer_id
) AS rows
CROSS JOIN LATERAL (VALUES ('country', COALESCE(rows.country, ''), ''), ('city', rows.city, COALESCE(rows.country, '')), ('source', rows.source, '')) AS d(dimension, value, context)
WHERE d.value IS NOT NULL
GROUP BY rows.petition_id, rows.day, d.dimension, d.value, d.context
HAVING sum(rows.n) <> 0;

-- Issue 14: views of the embed widget (GET /embed/p/{slug}), counted like page views.
ALTER TABLE petition_page_views_hourly ADD COLUMN widget_views bigint NOT NULL DEFAULT 0;

-- Issue 11: the fraud watch (core/moderation/fraud-watch*.ts). Signatures per subject (a petition,
-- a signer's /24 or /64 as its keyed hash in hex, an email domain) per watch window; the windows
-- before the current one are its baseline. Rows older than the baseline period are deleted by the watch.
CREATE TABLE fraud_watch_counts (
  subject_type text NOT NULL,
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  signatures integer NOT NULL,
  CONSTRAINT fraud_watch_counts_pkey PRIMARY KEY (subject_type, subject, window_start),
  CONSTRAINT fraud_watch_counts_subject_type_valid CHECK (subject_type IN ('petition', 'network_block', 'email_domain'))
);
CREATE INDEX fraud_watch_counts_window_idx ON fraud_watch_counts (window_start);

-- One alert per subject per window, whatever retries or overlapping runs do (the unique constraint).
CREATE TABLE fraud_alerts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  subject_type text NOT NULL,
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  window_end timestamptz NOT NULL,
  signatures integer NOT NULL,
  baseline double precision NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT fraud_alerts_once_per_window UNIQUE (subject_type, subject, window_start)
);
CREATE INDEX fraud_alerts_recent_idx ON fraud_alerts (created_at DESC, id DESC);

-- Where the watch has got to: every window ending at or before watched_until has been examined.
CREATE TABLE fraud_watch_state (
  name text PRIMARY KEY,
  watched_until timestamptz
);
INSERT INTO fraud_watch_state (name) VALUES ('signing-rates');
