-- Every API process keeps the public summaries of hot petitions in memory (core/petitions/read-cache.ts).
-- Whatever changes what a summary shows announces it on rally_petition_changed, from the database
-- itself, so that no path that writes (routes, workflows' activities, moderation, media processing,
-- a hand-run UPDATE) can forget to. NOTIFY is delivered at commit and never for a rolled-back change.
--
-- Payloads: `petition <id>` (the petition's own columns), `creator <user id>` (the creator object
-- embedded in every summary), `category <id>`. The live signature count is not announced here: it is
-- folded from the signature feed and re-read at most a second after it was last read.

CREATE FUNCTION rally_announce_petition_change() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    PERFORM pg_notify('rally_petition_changed', TG_ARGV[0] || ' ' || COALESCE(NEW.id, OLD.id)::text);
    RETURN NULL;
  END
  $$;

-- The rankings schedule rewrites signature_count and trending_score of every petition; those are
-- for sorting, never shown, so they are left out of the column list and wake nobody.
CREATE TRIGGER petitions_announce_change
  AFTER UPDATE OF slug, title, description, status, creator_id, org_id, category_id, tags, image_url, signature_goal, visibility,
    access_code, location_city, location_region, location_country, signature_privacy, victory_message, updated_at, published_at,
    closed_at, deleted_at
  ON petitions FOR EACH ROW
  WHEN (OLD IS DISTINCT FROM NEW)
  EXECUTE FUNCTION rally_announce_petition_change('petition');

CREATE TRIGGER petitions_announce_removal
  AFTER DELETE ON petitions FOR EACH ROW
  EXECUTE FUNCTION rally_announce_petition_change('petition');

CREATE TRIGGER users_announce_creator_change
  AFTER UPDATE OF display_name, slug, bio, avatar_url, petition_count ON users FOR EACH ROW
  WHEN ((OLD.display_name, OLD.slug, OLD.bio, OLD.avatar_url, OLD.petition_count)
    IS DISTINCT FROM (NEW.display_name, NEW.slug, NEW.bio, NEW.avatar_url, NEW.petition_count))
  EXECUTE FUNCTION rally_announce_petition_change('creator');

CREATE TRIGGER categories_announce_change
  AFTER UPDATE OR DELETE ON categories FOR EACH ROW
  EXECUTE FUNCTION rally_announce_petition_change('category');
