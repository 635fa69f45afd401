-- The decision-maker response portal. Each decision maker of a petition gets one portal token when
-- the petition is published (or when added to an active petition). Only a SHA-256 of the token is
-- kept: the token carries 32 random bytes, so the hash cannot be brute-forced.
ALTER TABLE petition_decision_makers
  -- pending (not invited yet) → sent | failed → viewed → responded; sent or viewed → expired.
  ADD COLUMN delivery_status text NOT NULL DEFAULT 'pending',
  ADD COLUMN delivery_error text,
  ADD COLUMN invited_at timestamptz,
  ADD COLUMN viewed_at timestamptz,
  ADD COLUMN responded_at timestamptz,
  ADD COLUMN expired_at timestamptz,
  ADD CONSTRAINT petition_decision_makers_delivery_status_valid
    CHECK (delivery_status IN ('pending', 'sent', 'failed', 'viewed', 'responded', 'expired'));

CREATE TABLE response_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  decision_maker_id uuid NOT NULL REFERENCES petition_decision_makers (id) ON DELETE CASCADE,
  petition_id uuid NOT NULL REFERENCES petitions (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set when the email went out; until then a retried send may replace the hash.
  sent_at timestamptz,
  expires_at timestamptz NOT NULL,
  -- Set by the expiry workflow (response-token-<id>): 410 from then on.
  expired_at timestamptz,
  responded_at timestamptz,
  CONSTRAINT response_tokens_hash_unique UNIQUE (token_hash),
  CONSTRAINT response_tokens_one_per_decision_maker UNIQUE (decision_maker_id)
);

CREATE TABLE decision_maker_responses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  petition_id uuid NOT NULL REFERENCES petitions (id) ON DELETE CASCADE,
  -- Kept when the decision maker is later removed: a published answer stays on the petition.
  decision_maker_id uuid REFERENCES petition_decision_makers (id) ON DELETE SET NULL,
  token_id uuid REFERENCES response_tokens (id) ON DELETE SET NULL,
  decision_maker_name text NOT NULL,
  decision_maker_title text NOT NULL,
  status text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  CONSTRAINT decision_maker_responses_status_valid CHECK (status IN ('acknowledged', 'supportive', 'opposed', 'neutral')),
  CONSTRAINT decision_maker_responses_body_length CHECK (char_length(body) BETWEEN 1 AND 10000),
  CONSTRAINT decision_maker_responses_one_per_token UNIQUE (token_id)
);
CREATE INDEX decision_maker_responses_published_idx ON decision_maker_responses (petition_id, published_at DESC, id DESC) WHERE published_at IS NOT NULL;
CREATE INDEX decision_maker_responses_petition_idx ON decision_maker_responses (petition_id, created_at DESC, id DESC);
