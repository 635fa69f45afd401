-- Search and analytics on PostgreSQL itself: full-text search (weighted tsvector, GIN), title
-- suggestions (trigrams), and rollup tables that analytics reads instead of the signatures table.
-- unaccent and pg_trgm ship with PostgreSQL's contrib modules and are trusted extensions.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE (its dictionary could change), so an index cannot use it directly.
-- Rally never changes the dictionary: this wrapper, with the dictionary named explicitly, is
-- immutable in practice and folds accents and case the same way for indexes and queries.
CREATE FUNCTION rally_search_fold(input text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, input)) $$;

-- The text-search configuration of a petition, guessed from its words: french or english when
-- their common words dominate, simple (no stemming) otherwise. Operators may set search_config by
-- hand; the trigger below keeps a value that an UPDATE changed explicitly.
CREATE FUNCTION rally_guess_search_config(body text) RETURNS regconfig
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT CASE
      WHEN fr >= 2 AND fr > en THEN 'pg_catalog.french'::regconfig
      WHEN en >= 2 THEN 'pg_catalog.english'::regconfig
      ELSE 'pg_catalog.simple'::regconfig
    END
    FROM (
      SELECT
        count(*) FILTER (WHERE word IN ('the', 'and', 'of', 'to', 'is', 'for', 'in', 'that', 'with', 'on', 'our', 'we', 'this', 'are', 'be', 'it')) AS en,
        count(*) FILTER (WHERE word IN ('le', 'la', 'les', 'des', 'et', 'est', 'pour', 'dans', 'une', 'du', 'nous', 'que', 'sur', 'pas', 'au', 'aux', 'ce', 'qui')) AS fr
      FROM regexp_split_to_table(lower(left(body, 4000)), '[^[:alpha:]]+') AS word
    ) AS counts
  $$;

ALTER TABLE petitions
  ADD COLUMN search_config regconfig NOT NULL DEFAULT 'pg_catalog.simple',
  ADD COLUMN search_document tsvector,
  -- The folded title, stored so that trigram rechecks do not fold every candidate again.
  ADD COLUMN search_title text GENERATED ALWAYS AS (rally_search_fold(title)) STORED;

-- Title A, tags B, description C, each folded (accents) and stemmed in the petition's language.
CREATE FUNCTION petitions_refresh_search_document() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' OR NEW.search_config IS NOT DISTINCT FROM OLD.search_config THEN
      NEW.search_config := rally_guess_search_config(NEW.title || ' ' || NEW.description);
    END IF;
    NEW.search_document :=
      setweight(to_tsvector(NEW.search_config, rally_search_fold(NEW.title)), 'A') ||
      setweight(to_tsvector(NEW.search_config, rally_search_fold(array_to_string(NEW.tags, ' '))), 'B') ||
      setweight(to_tsvector(NEW.search_config, rally_search_fold(NEW.description)), 'C');
    RETURN NEW;
  END
  $$;
CREATE TRIGGER petitions_search_document BEFORE INSERT OR UPDATE OF title, description, tags, search_config ON petitions
  FOR EACH ROW EXECUTE FUNCTION petitions_refresh_search_document();
UPDATE petitions SET title = title;

-- Only publicly listed petitions are searched (public, not deleted, active, closed or victory):
-- every search index is partial on exactly that rule, as core/search/publicly-listed.ts writes it.
CREATE INDEX petitions_search_document_idx ON petitions USING gin (search_document)
  WHERE deleted_at IS NULL AND visibility = 'public' AND status IN ('active', 'closed', 'victory');
CREATE INDEX petitions_search_title_trgm_idx ON petitions USING gin (search_title gin_trgm_ops)
  WHERE deleted_at IS NULL AND visibility = 'public' AND status IN ('active', 'closed', 'victory');
CREATE INDEX petitions_search_signatures_idx ON petitions (signature_count DESC, id DESC)
  WHERE deleted_at IS NULL AND visibility = 'public' AND status IN ('active', 'closed', 'victory');
-- Platform stats: petitions published, and victories, per day.
CREATE INDEX petitions_published_at_idx ON petitions (published_at)
  WHERE deleted_at IS NULL AND visibility = 'public' AND status IN ('active', 'closed', 'victory');
CREATE INDEX petitions_victory_at_idx ON petitions (closed_at)
  WHERE deleted_at IS NULL AND visibility = 'public' AND status = 'victory';

-- Where a signature came from, as the signing page says: embed, oembed, page, direct, share:<slug>…
ALTER TABLE signatures ADD COLUMN source text;
ALTER TABLE signatures ADD CONSTRAINT signatures_source_format CHECK (source IS NULL OR source ~ '^[a-z0-9][a-z0-9_.:-]{0,79}$');

-- Every signature added or removed leaves one delta row here, in the same transaction. The fold
-- (core/analytics/fold.ts, every minute through Temporal) deletes a batch of rows and adds them to
-- the rollups in one statement: a batch is counted exactly once however often the fold restarts,
-- and a slow transaction that commits late is simply folded by a later run.
CREATE TABLE signature_rollup_queue (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  petition_id uuid NOT NULL,
  signed_at timestamptz NOT NULL,
  country text,
  city text,
  source text,
  referrer_id uuid,
  delta smallint NOT NULL
);

CREATE FUNCTION signatures_enqueue_rollup() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO signature_rollup_queue (petition_id, signed_at, country, city, source, referrer_id, delta)
      VALUES (NEW.petition_id, NEW.created_at, NEW.country, NEW.city, NEW.source, NEW.referrer_id, 1);
      RETURN NEW;
    END IF;
    INSERT INTO signature_rollup_queue (petition_id, signed_at, country, city, source, referrer_id, delta)
    VALUES (OLD.petition_id, OLD.created_at, OLD.country, OLD.city, OLD.source, OLD.referrer_id, -1);
    RETURN OLD;
  END
  $$;
CREATE TRIGGER signatures_enqueue_rollup AFTER INSERT OR DELETE ON signatures
  FOR EACH ROW EXECUTE FUNCTION signatures_enqueue_rollup();
INSERT INTO signature_rollup_queue (petition_id, signed_at, country, city, source, referrer_id, delta)
  SELECT petition_id, created_at, country, city, source, referrer_id, 1 FROM signatures;

-- Signatures per petition per hour: the growth series of GET /v1/petitions/{id}/analytics.
CREATE TABLE petition_signatures_hourly (
  petition_id uuid NOT NULL,
  hour timestamptz NOT NULL,
  signatures integer NOT NULL,
  CONSTRAINT petition_signatures_hourly_pkey PRIMARY KEY (petition_id, hour)
);

-- A petition's signatures by country, by city (context: its country) and by traffic source, all time.
CREATE TABLE petition_signature_breakdown (
  petition_id uuid NOT NULL,
  dimension text NOT NULL,
  value text NOT NULL,
  context text NOT NULL DEFAULT '',
  signatures integer NOT NULL,
  CONSTRAINT petition_signature_breakdown_pkey PRIMARY KEY (petition_id, dimension, value, context),
  CONSTRAINT petition_signature_breakdown_dimension_valid CHECK (dimension IN ('country', 'city', 'source'))
);
CREATE INDEX petition_signature_breakdown_top_idx ON petition_signature_breakdown (petition_id, dimension, signatures DESC);

-- Signatures of public petitions per country per UTC day ('' when the country is unknown): the
-- platform's daily totals and geographic distribution.
CREATE TABLE signatures_country_daily (
  day date NOT NULL,
  country text NOT NULL,
  signatures integer NOT NULL,
  CONSTRAINT signatures_country_daily_pkey PRIMARY KEY (day, country)
);

-- How far the fold has gone, for operators and tests: the last queue row folded and the total.
CREATE TABLE analytics_fold_state (
  name text PRIMARY KEY,
  last_queue_id bigint NOT NULL DEFAULT 0,
  folded_rows bigint NOT NULL DEFAULT 0,
  folded_at timestamptz
);
INSERT INTO analytics_fold_state (name) VALUES ('signatures');

-- Page views of GET /v1/petitions/{slug}, counted in memory by each API process and added here in
-- batches (core/analytics/page-views.ts).
CREATE TABLE petition_page_views_hourly (
  petition_id uuid NOT NULL,
  hour timestamptz NOT NULL,
  views bigint NOT NULL,
  CONSTRAINT petition_page_views_hourly_pkey PRIMARY KEY (petition_id, hour)
);
