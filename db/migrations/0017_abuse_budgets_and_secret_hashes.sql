-- Closing the last holes of the abuse review (issue 10).

-- Every portal invitation a petition sent or queued. Removing the decision maker keeps the row, so
-- deleting and re-adding cannot refill a petition's daily budget or mail one address twice a week
-- (core/decision-makers/invitation-budget.ts). Only a hash of the address is kept; rows older than
-- a week are purged hourly with the rate-limit records.
CREATE TABLE decision_maker_invitation_log (
  decision_maker_id uuid PRIMARY KEY,
  petition_id uuid NOT NULL REFERENCES petitions (id) ON DELETE CASCADE,
  creator_id uuid NOT NULL,
  email_hash bytea NOT NULL,
  invited_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX decision_maker_invitation_log_petition_idx ON decision_maker_invitation_log (petition_id, invited_at);
CREATE INDEX decision_maker_invitation_log_creator_idx ON decision_maker_invitation_log (creator_id, invited_at);
CREATE INDEX decision_maker_invitation_log_age_idx ON decision_maker_invitation_log (invited_at);

-- The hourly purge of uploads never confirmed (core/media/abandoned.ts) finds them by age.
CREATE INDEX media_unconfirmed_idx ON media (created_at) WHERE confirmed_at IS NULL;
