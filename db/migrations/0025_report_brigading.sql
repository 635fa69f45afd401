-- Reports against brigading (issue 24). Each report keeps the keyed hash of its reporter's network
-- block (/24 or /64, as signatures do; never the address), so that many reports against one target
-- from one block within an hour can be told apart. Such a burst raises one row below per target and
-- block; the reports from an alerted block no longer count toward auto-hiding that target.
ALTER TABLE reports ADD COLUMN network_hash bytea;
CREATE INDEX reports_target_block_recent_idx ON reports (target_type, target_id, network_hash, created_at)
  WHERE network_hash IS NOT NULL;

-- Auto-hide leaves out people who reported the target before a reviewer closed their report.
CREATE INDEX reports_target_reporter_idx ON reports (target_type, target_id, reporter_id);

CREATE TABLE report_brigade_alerts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  target_type text NOT NULL,
  target_id uuid NOT NULL,
  network_hash bytea NOT NULL,
  -- Reports from the block against the target within the hour when the alert was raised.
  reports integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT report_brigade_alerts_target_type_valid CHECK (target_type IN ('petition', 'comment', 'user'))
);
CREATE INDEX report_brigade_alerts_target_idx ON report_brigade_alerts (target_type, target_id, network_hash, created_at DESC);

-- Whether a hidden target was hidden by auto-hide (then dismissing its reports restores it) is read
-- from its latest hiding audit row.
CREATE INDEX audit_logs_target_recent_idx ON audit_logs (target_id, created_at DESC);
