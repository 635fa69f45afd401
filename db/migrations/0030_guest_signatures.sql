-- Guest signatures (issue 26): signed on the petition page or in the widget without an account, and
-- counted only once the link emailed to the signer is clicked (double opt-in). Until then a row here
-- is all there is: no user, no signature, no event. The link's token is never stored, only its
-- SHA-256 (token_hash). Confirmation emails, the one reminder and the expiry are sent and swept in
-- batches by the guest-signature-emails workflow; `email_due` marks a row whose email is to go out,
-- `email_queued_at` when the outbox dispatcher last woke that workflow for it.
CREATE TABLE guest_signatures (
  id uuid PRIMARY KEY,
  petition_id uuid NOT NULL REFERENCES petitions (id) ON DELETE CASCADE,
  email text NOT NULL,
  -- rally_email_key(email): one open guest signature per petition and person, however the address is spelled.
  email_key text NOT NULL,
  display_name text NOT NULL,
  comment text,
  is_anonymous boolean NOT NULL DEFAULT false,
  -- The unticked box: may the petition's creator write to this signer?
  contact_consent boolean NOT NULL DEFAULT false,
  source text,
  network_hash bytea,
  token_hash bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  requested_at timestamptz NOT NULL DEFAULT now(),
  email_due boolean NOT NULL DEFAULT true,
  email_queued_at timestamptz,
  emailed_at timestamptz,
  reminded_at timestamptz,
  expires_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  signature_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT guest_signatures_status_valid CHECK (status IN ('pending', 'confirmed', 'already_signed', 'expired')),
  CONSTRAINT guest_signatures_email_length CHECK (char_length(email) <= 254),
  CONSTRAINT guest_signatures_name_length CHECK (char_length(display_name) BETWEEN 1 AND 100),
  CONSTRAINT guest_signatures_comment_length CHECK (comment IS NULL OR char_length(comment) <= 500)
);

-- One open guest signature per petition and address: signing again within the hour mails nothing more.
CREATE UNIQUE INDEX guest_signatures_open_idx ON guest_signatures (petition_id, email_key) WHERE status = 'pending';
-- The emails to send, oldest first.
CREATE INDEX guest_signatures_email_due_idx ON guest_signatures (requested_at) WHERE email_due;
-- Reminders and expiry: open rows by deadline.
CREATE INDEX guest_signatures_open_expiry_idx ON guest_signatures (expires_at) WHERE status = 'pending';
-- The per-address ceiling across petitions (confirmation emails to one address per hour).
CREATE INDEX guest_signatures_email_recent_idx ON guest_signatures (email_key, requested_at);
-- The fraud watch reads pending signatures by time, like signatures.
CREATE INDEX guest_signatures_created_idx ON guest_signatures (created_at);
