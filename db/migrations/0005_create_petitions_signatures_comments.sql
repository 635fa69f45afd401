CREATE TABLE categories (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL,
  name text NOT NULL,
  CONSTRAINT categories_slug_unique UNIQUE (slug)
);
INSERT INTO categories (slug, name) VALUES
  ('animals', 'Animals'), ('economy', 'Economy'), ('education', 'Education'), ('environment', 'Environment'),
  ('health', 'Health'), ('human-rights', 'Human rights'), ('justice', 'Criminal justice'), ('local', 'Local'),
  ('politics', 'Politics and government'), ('technology', 'Technology'), ('transport', 'Transport');

CREATE TABLE petitions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL,
  title text NOT NULL,
  description text NOT NULL,
  status text NOT NULL DEFAULT 'draft',
  creator_id uuid NOT NULL REFERENCES users (id),
  org_id uuid,
  category_id uuid REFERENCES categories (id),
  tags text[] NOT NULL DEFAULT '{}',
  image_url text,
  signature_goal integer,
  visibility text NOT NULL DEFAULT 'public',
  -- Shown only to the creator; made when the petition becomes private.
  access_code text,
  location_city text,
  location_region text,
  location_country text,
  signature_privacy text NOT NULL DEFAULT 'public',
  victory_message text,
  -- Rolled up from signature_counters by the rankings schedule: for sorting, not for display.
  signature_count bigint NOT NULL DEFAULT 0,
  trending_score double precision NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  closed_at timestamptz,
  deleted_at timestamptz,
  CONSTRAINT petitions_slug_unique UNIQUE (slug),
  CONSTRAINT petitions_status_valid CHECK (status IN ('draft', 'active', 'closed', 'victory', 'under_review')),
  CONSTRAINT petitions_visibility_valid CHECK (visibility IN ('public', 'private', 'unlisted')),
  CONSTRAINT petitions_signature_privacy_valid CHECK (signature_privacy IN ('public', 'creator_only', 'count_only')),
  CONSTRAINT petitions_title_length CHECK (char_length(title) BETWEEN 5 AND 200),
  CONSTRAINT petitions_description_length CHECK (char_length(description) BETWEEN 50 AND 50000),
  CONSTRAINT petitions_tags_limit CHECK (cardinality(tags) <= 10),
  CONSTRAINT petitions_signature_goal_positive CHECK (signature_goal IS NULL OR signature_goal >= 1)
);
-- Listing paths: public listed petitions by recency, popularity, trend; a creator's petitions; tags; categories.
CREATE INDEX petitions_listed_recent_idx ON petitions (created_at DESC, id DESC) WHERE deleted_at IS NULL AND visibility = 'public' AND status <> 'under_review';
CREATE INDEX petitions_listed_popular_idx ON petitions (signature_count DESC, id DESC) WHERE deleted_at IS NULL AND visibility = 'public' AND status <> 'under_review';
CREATE INDEX petitions_listed_trending_idx ON petitions (trending_score DESC, id DESC) WHERE deleted_at IS NULL AND visibility = 'public' AND status <> 'under_review';
CREATE INDEX petitions_status_recent_idx ON petitions (status, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX petitions_creator_recent_idx ON petitions (creator_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX petitions_category_recent_idx ON petitions (category_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX petitions_tags_idx ON petitions USING gin (tags);

CREATE TABLE petition_decision_makers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  petition_id uuid NOT NULL REFERENCES petitions (id) ON DELETE CASCADE,
  name text NOT NULL,
  title text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX petition_decision_makers_petition_idx ON petition_decision_makers (petition_id, created_at);

CREATE TABLE signatures (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  petition_id uuid NOT NULL REFERENCES petitions (id),
  user_id uuid NOT NULL REFERENCES users (id),
  comment text,
  is_anonymous boolean NOT NULL DEFAULT false,
  display_location text,
  -- Coarse, city-level place for the map; never an IP address.
  city text,
  region text,
  country text,
  latitude double precision,
  longitude double precision,
  referrer_id uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT signatures_one_per_user UNIQUE (petition_id, user_id),
  CONSTRAINT signatures_comment_length CHECK (comment IS NULL OR char_length(comment) <= 500)
);
CREATE INDEX signatures_petition_recent_idx ON signatures (petition_id, created_at DESC, id DESC);
CREATE INDEX signatures_user_recent_idx ON signatures (user_id, created_at DESC, id DESC);
CREATE INDEX signatures_recent_idx ON signatures (created_at);
CREATE INDEX signatures_referrer_idx ON signatures (petition_id, referrer_id) WHERE referrer_id IS NOT NULL;

-- The live count, spread over shards so that thousands of signers of one petition do not queue on
-- one row. The count is the sum of a petition's shards.
CREATE TABLE signature_counters (
  petition_id uuid NOT NULL REFERENCES petitions (id),
  shard smallint NOT NULL,
  count bigint NOT NULL DEFAULT 0,
  CONSTRAINT signature_counters_pkey PRIMARY KEY (petition_id, shard)
);

-- One row per milestone reached: the primary key makes each milestone's event happen exactly once.
CREATE TABLE petition_milestones (
  petition_id uuid NOT NULL REFERENCES petitions (id),
  threshold bigint NOT NULL,
  signature_id uuid NOT NULL,
  reached_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT petition_milestones_pkey PRIMARY KEY (petition_id, threshold)
);

CREATE TABLE comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  petition_id uuid NOT NULL REFERENCES petitions (id),
  user_id uuid NOT NULL REFERENCES users (id),
  parent_id uuid REFERENCES comments (id),
  body text NOT NULL,
  is_hidden boolean NOT NULL DEFAULT false,
  reply_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  CONSTRAINT comments_body_length CHECK (char_length(body) BETWEEN 1 AND 2000)
);
CREATE INDEX comments_petition_recent_idx ON comments (petition_id, created_at DESC, id DESC) WHERE parent_id IS NULL;
CREATE INDEX comments_petition_popular_idx ON comments (petition_id, reply_count DESC, created_at DESC, id DESC) WHERE parent_id IS NULL;
CREATE INDEX comments_parent_idx ON comments (parent_id, created_at, id) WHERE parent_id IS NOT NULL;

CREATE TABLE petition_updates (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  petition_id uuid NOT NULL REFERENCES petitions (id),
  author_id uuid NOT NULL REFERENCES users (id),
  title text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX petition_updates_petition_recent_idx ON petition_updates (petition_id, created_at DESC, id DESC);
