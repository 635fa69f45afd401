-- Each API process keeps recent analytics answers in memory (core/analytics/analytics-cache.ts). They
-- are read from the rollups only, and the rollups change in two places: the signature fold (which
-- moves analytics_fold_state forward in the same statement) and the page-view flush. Both announce it
-- on rally_rollups_changed from the database itself, at commit, so a cached answer is forgotten as
-- soon as a newer one exists, whoever wrote the rollup.

CREATE FUNCTION rally_announce_rollup_change() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    PERFORM pg_notify('rally_rollups_changed', TG_TABLE_NAME);
    RETURN NULL;
  END
  $$;

-- Per row: the fold's UPDATE matches no row when its batch was empty, and that changed nothing.
CREATE TRIGGER analytics_fold_state_announce_change
  AFTER UPDATE ON analytics_fold_state
  FOR EACH ROW EXECUTE FUNCTION rally_announce_rollup_change();

CREATE TRIGGER petition_page_views_announce_change
  AFTER INSERT OR UPDATE ON petition_page_views_hourly
  FOR EACH STATEMENT EXECUTE FUNCTION rally_announce_rollup_change();
