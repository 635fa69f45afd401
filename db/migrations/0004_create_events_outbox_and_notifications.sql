-- The transactional outbox: every domain event is written in the same transaction as the change
-- that causes it. A dispatcher hands undispatched events to Temporal; `position` gives a total
-- order for dispatch and for replaying an endpoint's events "since" a time.
CREATE TABLE events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  position bigint GENERATED ALWAYS AS IDENTITY,
  type text NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  actor_type text NOT NULL,
  actor_id text,
  petition_id uuid,
  data jsonb NOT NULL,
  dispatched_at timestamptz,
  CONSTRAINT events_position_unique UNIQUE (position),
  CONSTRAINT events_actor_type_valid CHECK (actor_type IN ('user', 'api_key', 'system', 'decision_maker'))
);
-- The dispatcher's work queue: only undispatched rows are in this index, so it stays tiny.
CREATE INDEX events_undispatched_idx ON events (position) WHERE dispatched_at IS NULL;
CREATE INDEX events_occurred_at_idx ON events (occurred_at, position);
CREATE INDEX events_petition_id_idx ON events (petition_id, position) WHERE petition_id IS NOT NULL;

-- In-app notifications, one row per recipient.
CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  type text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Makes fan-out idempotent: a retried batch cannot notify anyone twice about one thing.
  dedupe_key text NOT NULL,
  read_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT notifications_dedupe_unique UNIQUE (user_id, dedupe_key)
);
CREATE INDEX notifications_user_created_idx ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_user_unread_idx ON notifications (user_id, created_at DESC, id DESC) WHERE read_at IS NULL;
