-- The outbox as a log (issue 43). Events are appended and never updated: the dispatcher reads past a
-- stored position per consumer (event_consumers) instead of locking rows and setting dispatched_at,
-- and a day's partition is dropped whole once older than RALLY_EVENT_RETENTION. The order it reads
-- in is (transaction_id, position), and only below the oldest transaction still running: see
-- core/events/outbox-reader.ts and docs/architecture.md ("The outbox").

-- Time-ordered keys (UUID version 7: 48 bits of milliseconds, then random bits), so new events land at
-- the right-hand edge of the primary key instead of on random pages. PostgreSQL 15 has no uuidv7().
CREATE FUNCTION rally_uuidv7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
    PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;

-- A delivery names its event, but an event's day is dropped after the retention: no foreign key (the
-- delivery log is listed while its event is kept).
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;

CREATE SEQUENCE event_positions AS bigint;

CREATE TABLE events_log (
  id uuid NOT NULL DEFAULT rally_uuidv7(),
  position bigint NOT NULL DEFAULT nextval('event_positions'),
  -- The writing transaction: the dispatcher reads an event only once every transaction below it ended.
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  type text NOT NULL,
  occurred_at timestamptz NOT NULL DEFAULT now(),
  actor_type text NOT NULL,
  actor_id text,
  petition_id uuid,
  data jsonb NOT NULL,
  trace_context jsonb,
  CONSTRAINT events_actor_type_valid CHECK (actor_type IN ('user', 'api_key', 'system', 'decision_maker', 'oauth_app'))
) PARTITION BY RANGE (occurred_at);
ALTER SEQUENCE event_positions OWNED BY events_log.position;

-- Every event written so far goes into one partition, dropped whole once its last day is past the window.
DO $$
BEGIN
  EXECUTE format('CREATE TABLE events_before_0046 PARTITION OF events_log FOR VALUES FROM (MINVALUE) TO (%L)',
    date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC');
  FOR day IN 0..7 LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF events_log FOR VALUES FROM (%L) TO (%L)',
      'events_' || to_char(now() AT TIME ZONE 'UTC' + make_interval(days => day), 'YYYYMMDD'),
      date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + make_interval(days => day),
      date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + make_interval(days => day + 1));
  END LOOP;
END $$;

-- Rows written before this migration sort first (transaction id 3, the first normal one), in position order.
INSERT INTO events_log (id, position, transaction_id, type, occurred_at, actor_type, actor_id, petition_id, data, trace_context)
SELECT id, position, '3'::xid8, type, occurred_at, actor_type, actor_id, petition_id, data, trace_context FROM events;
SELECT setval('event_positions', COALESCE((SELECT max(position) FROM events), 0) + 1, false);

-- Where each reader of the log is: it has handled every event up to (transaction_id, position).
CREATE TABLE event_consumers (
  name text PRIMARY KEY,
  transaction_id xid8 NOT NULL,
  position bigint NOT NULL
);
-- The dispatcher goes on from the first event it had not dispatched; any dispatched after it are
-- dispatched again, which is harmless (deliveries and notifications are unique per event).
INSERT INTO event_consumers (name, transaction_id, position)
SELECT 'dispatcher', '3'::xid8, COALESCE((SELECT min(position) - 1 FROM events WHERE dispatched_at IS NULL), (SELECT max(position) FROM events), 0);

DROP TABLE events;
ALTER TABLE events_log RENAME TO events;

-- The indexes that queries use (EXPLAIN of each in the commit): an event by id (deliveries, replay),
-- the dispatcher's order, and recent events by time (the minute's roll-up, replay) as a BRIN, which
-- costs next to nothing on an append-only table.
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, occurred_at);
CREATE INDEX events_dispatch_order_idx ON events (transaction_id, position);
CREATE INDEX events_occurred_at_brin ON events USING brin (occurred_at);
