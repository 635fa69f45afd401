-- Issue 43: the API processes that share the rate-limit buckets, each stamped once a second. A
-- limiter writes a key's spends only when they could matter to another process that is charging
-- limits too (api/http/rate-limit.ts), and how many there are says when that is. No personal data; a
-- row not stamped for a minute is deleted by the next stamp of any process.
CREATE UNLOGGED TABLE rate_limit_processes (
  process_id uuid PRIMARY KEY,
  seen_at timestamptz NOT NULL,
  -- When it last charged a limit: a process that serves none (an idle replica, one for operators
  -- only) holds no spends that another could miss.
  charged_at timestamptz
);
