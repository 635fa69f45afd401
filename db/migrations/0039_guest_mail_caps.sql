-- Mail to strangers (issue 42): a guest form names any address, so what Rally mails an address it has
-- no account for is capped and can be stopped by the address's owner.
--
-- `day_requests`: the confirmation emails asked for by this row in a run of requests less than a day
-- apart (a form again for an open row, an hour after the last, mails it again and moves requested_at).
-- Summed over an address's rows requested within the day it counts every email of the day, so the
-- daily cap (RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY) holds also against one petition's form repeated.
-- `remind`: false once the address stopped guest mail (the email workflow drops the row's mail).
ALTER TABLE guest_signatures
  ADD COLUMN day_requests integer NOT NULL DEFAULT 1,
  ADD COLUMN remind boolean NOT NULL DEFAULT true;

-- When a form for an address (its normalised key) was last over a per-address cap: the address's guest
-- signatures requested until then get no reminder. A row of its own, not a flag on those signatures, so
-- that a flood of forms never waits for the rows the email workflow holds while it mails them. Kept for
-- RALLY_SIGNATURE_CONFIRMATION_TTL, after which nothing requested before it is still open.
CREATE TABLE guest_mail_over_limit (
  email_key text PRIMARY KEY,
  at timestamptz NOT NULL
);
CREATE INDEX guest_mail_over_limit_at_idx ON guest_mail_over_limit (at);

-- "Never email me again": the addresses whose owners stopped all guest mail, as an HMAC of the
-- address's normalised key (rally_email_key) under a key derived from RALLY_ENCRYPTION_KEY
-- (core/guest-signatures/mail-stop.ts), never the address itself.
CREATE TABLE guest_mail_stops (
  address_hash bytea PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT guest_mail_stops_hash_length CHECK (octet_length(address_hash) = 32)
);
