-- Issue 43: a signature at the cost of the work it needs.

-- Roll-ups per statement, not per row. The row-level trigger wrote one queue row per signature (a
-- plpgsql call and an insert each, 7.8 s of statement time for 36,942 signatures in the bench's hot
-- row), which the minute fold deleted again. An insert now writes one row per (petition, time,
-- country, city, source, referrer) it added, `delta` the number of signatures: a signing batch's rows
-- share one created_at (its transaction's), so that is one row per group per batch. The fold sums
-- delta, so what it adds is unchanged; the trending refresh weighs a row by its exact signed_at, as
-- before. A statement trigger rather than a CTE of the signing statement: every writer of
-- signatures (seeds, tests, fixes by hand) stays counted. Deleting keeps its row-level trigger.
ALTER TABLE signature_rollup_queue ALTER COLUMN delta TYPE integer;
DROP TRIGGER signatures_enqueue_rollup ON signatures;
CREATE TRIGGER signatures_enqueue_rollup AFTER DELETE ON signatures
  FOR EACH ROW EXECUTE FUNCTION signatures_enqueue_rollup();
CREATE FUNCTION signatures_enqueue_added_rollups() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    INSERT INTO signature_rollup_queue (petition_id, signed_at, country, city, source, referrer_id, delta)
    SELECT petition_id, created_at, country, city, source, referrer_id, count(*)
    FROM added GROUP BY petition_id, created_at, country, city, source, referrer_id;
    RETURN NULL;
  END
  $$;
CREATE TRIGGER signatures_enqueue_added_rollups AFTER INSERT ON signatures
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION signatures_enqueue_added_rollups();

-- The signer's normalised address, kept with the account instead of computed (three regular
-- expressions) for every signature the signing statement writes, and for every directory lookup.
-- rally_email_key is IMMUTABLE: a migration that ever changes it must recompute this column.
ALTER TABLE users ADD COLUMN email_key text GENERATED ALWAYS AS (rally_email_key(email)) STORED;

-- The petition's foreign key: its check took FOR KEY SHARE on the petition for every signature (a
-- multixact on the hot petition's row). The signing statement inserts only for a petition it has just
-- read as live and active, and petitions are never deleted (only marked deleted_at), so no delete
-- path needs it. The signer's foreign key stays: account deletion locks the user row so that a
-- signature written meanwhile waits and fails (core/account-deletion/erasure.ts), which only the
-- key's check does; the referrer's stays for the same erasure.
ALTER TABLE signatures DROP CONSTRAINT signatures_petition_id_fkey;
