-- Mail to strangers (issue 42): a guest form names any address, so what Rally mails an address it has
-- no account for is capped and can be stopped by the address's owner.
--
-- `day_requests`: the confirmation emails asked for by this row in a run of requests less than a day
-- apart (a form again for an open row, an hour after the last, mails it again and moves requested_at).
-- Summed over an address's rows requested within the day it counts every email of the day, so the
-- daily cap (RALLY_GUEST_EMAILS_PER_ADDRESS_PER_DAY) holds also against one petition's form repeated.
-- `remind`: false once a form for the address was over a per-address limit, or the address stopped
-- guest mail: that row gets no reminder.
ALTER TABLE guest_signatures
  ADD COLUMN day_requests integer NOT NULL DEFAULT 1,
  ADD COLUMN remind boolean NOT NULL DEFAULT true;

-- "Never email me again": the addresses whose owners stopped all guest mail, as an HMAC of the
-- address's normalised key (rally_email_key) under a key derived from RALLY_ENCRYPTION_KEY
-- (core/guest-signatures/mail-stop.ts), never the address itself.
CREATE TABLE guest_mail_stops (
  address_hash bytea PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT guest_mail_stops_hash_length CHECK (octet_length(address_hash) = 32)
);
